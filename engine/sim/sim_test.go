package sim

import (
	"testing"
)

func TestQueueOrdersByTimeThenFIFO(t *testing.T) {
	var q Queue
	q.Schedule(30, 0, 1, 0)
	q.Schedule(10, 0, 2, 0)
	q.Schedule(30, 0, 3, 0)
	q.Schedule(10, 0, 4, 0)
	q.Schedule(20, 0, 5, 0)
	q.Schedule(10, 0, 6, 0)
	var got []int32
	for {
		ev, ok := q.Pop()
		if !ok {
			break
		}
		got = append(got, ev.A)
		if ev.At != q.Now() {
			t.Fatalf("Now() = %v after popping an event at %v", q.Now(), ev.At)
		}
	}
	want := []int32{2, 4, 6, 5, 1, 3}
	if len(got) != len(want) {
		t.Fatalf("popped %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("popped %v, want %v", got, want)
		}
	}
}

func TestQueueNeverGoesBackwards(t *testing.T) {
	var q Queue
	q.Schedule(100, 0, 0, 0)
	q.Pop()
	q.Schedule(50, 0, 1, 0) // in the past: runs now
	ev, _ := q.Pop()
	if ev.At != 100 {
		t.Errorf("event scheduled in the past ran at %v, want 100 (now)", ev.At)
	}
}

func TestRNGIsDeterministic(t *testing.T) {
	// SplitMix64 reference values for seed 0 (Vigna's splitmix64.c).
	r := NewRNG(0)
	want := []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f}
	for i, w := range want {
		if got := r.Uint64(); got != w {
			t.Errorf("Uint64() #%d = %#x, want %#x", i, got, w)
		}
	}
	a, b := NewRNG(42), NewRNG(42)
	for i := 0; i < 1000; i++ {
		x, y := a.Float64(), b.Float64()
		if x != y || x < 0 || x >= 1 {
			t.Fatalf("Float64 #%d: %v vs %v", i, x, y)
		}
	}
}

func TestTime(t *testing.T) {
	tests := []struct {
		t    Time
		want string
	}{
		{1500 * Nanosecond, "1.5 µs"},
		{1057910 * Nanosecond, "1.06 ms"},
		{2 * Second, "2 s"},
		{12, "12 ps"},
	}
	for _, tt := range tests {
		if got := tt.t.String(); got != tt.want {
			t.Errorf("Time(%d).String() = %q, want %q", int64(tt.t), got, tt.want)
		}
	}
	// 32 MiB at 450 GB/s = 74.565404444 µs, rounded up to a picosecond.
	if got, want := TransferTime(32<<20, 450e9), Time(74565405); got != want {
		t.Errorf("TransferTime(32 MiB, 450 GB/s) = %d ps, want %d", got, want)
	}
	if got := FromSeconds(1.5e-6); got != 1500*Nanosecond {
		t.Errorf("FromSeconds(1.5e-6) = %v", got)
	}
}
