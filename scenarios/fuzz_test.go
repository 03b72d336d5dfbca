package scenarios

import (
	"errors"
	"strconv"
	"testing"
)

// FuzzLoad checks that Load never panics and that every failure is a
// *FileError with a line inside the file.
func FuzzLoad(f *testing.F) {
	f.Add(good)
	f.Add(replaceLine(6, "knob: gpus int min=64 max=2 default=8 label=knob.gpus"))
	f.Add("step: a\nstep: a\nset: x=1\n")
	f.Fuzz(func(t *testing.T, src string) {
		s, err := Load("f.scn", []byte(src))
		if err == nil {
			if s == nil || len(s.Steps) == 0 {
				t.Fatalf("Load(%q) = %v, nil; want a scenario with steps", src, s)
			}
			return
		}
		var fe *FileError
		if !errors.As(err, &fe) || fe.Line < 1 || fe.Field == "" {
			t.Fatalf("Load(%q) error %v: want a *FileError with a line and a field", src, err)
		}
	})
}

// FuzzBytesKnob checks that a bytes knob accepts only whole byte counts
// and that FormatBytes of the result reads back the same.
func FuzzBytesKnob(f *testing.F) {
	for _, s := range []string{"256MiB", "1.5GiB", "0.001KB", "99999999999999999999TiB", ".5MB", "1 kib"} {
		f.Add(s)
	}
	k := Knob{Name: "bytes", Kind: KnobBytes, Min: 0, Max: 1<<63 - 1}
	f.Fuzz(func(t *testing.T, text string) {
		c, err := k.Parse(text)
		if err != nil {
			return
		}
		n, perr := strconv.ParseInt(c, 10, 64)
		if perr != nil || n < 0 {
			t.Fatalf("Parse(%q) = %q, not a byte count", text, c)
		}
		if back, err := k.Parse(FormatBytes(n)); err != nil || back != c {
			t.Fatalf("Parse(FormatBytes(%d)) = %q, %v; want %q", n, back, err, c)
		}
	})
}
