package paint

// shader colours one quad per shape or glyph; a whole display list is one
// DrawTrianglesShader call with the glyph atlas as source image 0.
//
// Per vertex: color is the premultiplied colour. For a glyph, custom.x is
// -1 and srcPos is the position in the atlas: the atlas's alpha is the
// glyph's coverage. For a shape, srcPos less the atlas's origin is the
// position in the shape's own frame (origin at its centre, x along the
// shape) and custom = (half width, half height, corner radius, stroke).
// The signed distance d from the shape's edge (negative inside) gives a
// pixel's coverage as clamp(0.5-d, 0, 1): a one-pixel ramp centred on the
// edge, so an edge on a pixel boundary stays crisp.
var shader = []byte(`//kage:unit pixels

package main

func sdBox(p vec2, b vec2) float {
	q := abs(p) - b
	return length(max(q, vec2(0))) + min(max(q.x, q.y), 0)
}

func Fragment(dstPos vec4, srcPos vec2, color vec4, custom vec4) vec4 {
	if custom.x < 0 {
		return color * imageSrc0UnsafeAt(srcPos).a
	}
	p := srcPos - imageSrc0Origin()
	half := custom.xy
	r := custom.z
	d := sdBox(p, half-vec2(r)) - r
	if custom.w > 0 {
		d = max(d, -sdBox(p, half-vec2(custom.w)))
	}
	return color * clamp(0.5-d, 0, 1)
}
`)
