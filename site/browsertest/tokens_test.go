package browsertest

import (
	"slices"
	"testing"
)

// missingTokens finds a title in what pdftotext reads back whatever the
// order of its runs: the Noto Sans CJK order below broke the check that
// looked for each space-separated word in order (issue 17).
func TestMissingTokens(t *testing.T) {
	const title = "环形 AllReduce：把各 GPU 的梯度加起来"
	tests := []struct {
		name, text, want string
		miss             []string
	}{
		{"wqy order", "GPUSCOPE 课程\n环形 AllReduce：把各 GPU 的梯度加起来\n", title, nil},
		{"noto order", "环形\n\n课程\nAllReduce\n\nGPUSCOPE\n\n：把各 GPU 的梯度加起来\n", title, nil},
		{"a character lost", "环形 AllReduce：把各 GPU 的梯加起来", title, []string{"度"}},
		{"a character once, wanted twice", "第 1 步", "第一步 第二步", []string{"一", "二", "步", "第"}},
		{"a Latin word lost", "环形 All：把各 GPU 的梯度加起来", title, []string{"AllReduce"}},
		{"a Latin word split by pdftotext", "All Reduce", "AllReduce", nil},
		{"a number", "用时 1.058 ms", "1.058 ms", nil},
		{"a number changed", "用时 1.058 ms", "1.06 ms", []string{"1.06"}},
		{"a ligature", "e\ufb03cient", "efficient", nil},
		{"empty", "anything", "", nil},
	}
	for _, tt := range tests {
		if got := missingTokens(tt.text, tt.want); !slices.Equal(got, tt.miss) {
			t.Errorf("%s: missingTokens(%q, %q) = %q, want %q", tt.name, tt.text, tt.want, got, tt.miss)
		}
	}
}
