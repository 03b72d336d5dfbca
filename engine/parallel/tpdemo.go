package parallel

import "math"

// TPExample is Megatron-LM's MLP split over two GPUs with small matrices a
// reader can check by hand (Shoeybi et al. 2019, §3): Z = GeLU(X·A)·B with
// A split by columns and B by rows, so each GPU computes Zi =
// GeLU(X·Ai)·Bi without talking to the other, and Z = Z1 + Z2 is one
// all-reduce.
type TPExample struct {
	X, A, B        [][]float64 // X b×h, A h×f, B f×h
	A1, A2, B1, B2 [][]float64 // the halves
	Y1, Y2         [][]float64 // GeLU(X·A1), GeLU(X·A2)
	Z1, Z2, Z      [][]float64 // Yi·Bi and their sum
	Direct         [][]float64 // GeLU(X·A)·B computed on one GPU
}

// GeLU is the tanh approximation GPT uses.
func GeLU(x float64) float64 {
	return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
}

func matmul(a, b [][]float64) [][]float64 {
	out := make([][]float64, len(a))
	for i := range a {
		out[i] = make([]float64, len(b[0]))
		for j := range b[0] {
			for k := range b {
				out[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return out
}

func apply(m [][]float64, f func(float64) float64) [][]float64 {
	out := make([][]float64, len(m))
	for i, row := range m {
		out[i] = make([]float64, len(row))
		for j, v := range row {
			out[i][j] = f(v)
		}
	}
	return out
}

// NewTPExample builds the example: X 2×3, A 3×4, B 4×3, entries in
// halves between −1 and 1 so products stay readable.
func NewTPExample() TPExample {
	e := TPExample{
		X: [][]float64{{1, 0.5, -1}, {0, 1, 0.5}},
		A: [][]float64{{0.5, -1, 1, 0}, {1, 0.5, -0.5, 1}, {0, 1, 0.5, -0.5}},
		B: [][]float64{{1, 0, 0.5}, {-0.5, 1, 0}, {0, 0.5, 1}, {1, -1, 0.5}},
	}
	for _, row := range e.A {
		e.A1 = append(e.A1, row[:2])
		e.A2 = append(e.A2, row[2:])
	}
	e.B1, e.B2 = e.B[:2], e.B[2:]
	e.Y1 = apply(matmul(e.X, e.A1), GeLU)
	e.Y2 = apply(matmul(e.X, e.A2), GeLU)
	e.Z1 = matmul(e.Y1, e.B1)
	e.Z2 = matmul(e.Y2, e.B2)
	e.Z = make([][]float64, len(e.Z1))
	for i := range e.Z1 {
		e.Z[i] = make([]float64, len(e.Z1[i]))
		for j := range e.Z1[i] {
			e.Z[i][j] = e.Z1[i][j] + e.Z2[i][j]
		}
	}
	e.Direct = matmul(apply(matmul(e.X, e.A), GeLU), e.B)
	return e
}
