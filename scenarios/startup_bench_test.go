package scenarios

import "testing"

func BenchmarkNewPlayer(b *testing.B) {
	for i := 0; i < b.N; i++ {
		p, _ := NewPlayer()
		p.Report()
		p.Lesson().Table(1, "en")
	}
}

func BenchmarkLoadEmbedded(b *testing.B) {
	for i := 0; i < b.N; i++ {
		loadEmbedded(dataFS)
	}
}
