// Package textcheck holds the writing rules of the project's glossary
// (../shared/GLOSSARY.md) as checks a test can run on any text a reader
// sees: the simulator's narration, tables, errors and screen-reader text
// (package scenarios' tests) and the course pages (package course's
// tests). It is used by tests only.
//
// Chinese text fails on
//
//   - Latin script beyond the product, API and unit names a Chinese
//     reader sees in Latin script (AllowedLatin; GLOSSARY rule 2): a
//     word of three or more letters outside the list is English that
//     leaked through;
//   - half-width punctuation , . : ; ( ) ? ! touching a Chinese
//     character (rule 3: full-width around Chinese text, half-width only
//     inside formulas and code);
//   - a term written another way than the glossary's, or a unit, ratio or
//     count written against rules 4 and 5 (Variants).
//
// English text fails on any Chinese character, and on the Latin
// variants of Variants (AllToAll for All-to-All).
package textcheck

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// AllowedLatin are the words of three or more letters a Chinese reader
// sees in Latin script, each for its reason. Anything else of three
// letters or more in Chinese text is English that should have gone
// through the catalogue. Two-letter abbreviations (TP, PP, DP, EP, SM,
// IB, NIC …) and unit symbols of two letters (ms, GB, µs) pass without
// being listed.
var AllowedLatin = map[string]string{
	// Products, chips, links and interconnects (GLOSSARY rule 2).
	"GPU": "product", "CPU": "product", "NVIDIA": "vendor", "CUDA": "API", "NVLink": "product", "NVSwitch": "product",
	"InfiniBand": "product", "NDR": "InfiniBand generation", "HDR": "InfiniBand generation", "XDR": "InfiniBand generation",
	"RoCE": "protocol", "PCIe": "bus", "SXM": "H100 form factor", "NVL": "H100 NVL, a PCIe card", "ConnectX-7": "NIC product", "HGX": "product",
	"NVL72": "product", "Perfetto": "trace viewer, a product", "GB200": "product", "HBM": "memory type", "SRAM": "memory type", "NCCL": "library",
	"nccl-tests": "tool", "PyTorch": "framework", "DDP": "PyTorch API", "FSDP": "PyTorch API", "DeepSpeed": "framework",
	"Megatron-LM": "framework", "Megatron": "model and framework", "MegaScale": "ByteDance's training system (Jiang et al. 2024)", "WebGL": "browser API", "WebM": "file format",
	"PNG": "file format", "HTML": "format", "JSON": "format", "MediaRecorder": "browser API", "JavaScript": "language",
	"Enter": "key name", "Ctrl": "key name", "Mac": "platform", "Hugging": "Hugging Face", "Face": "Hugging Face",
	"config.json": "file name", "Meta": "company", "Google": "company", "OpenAI": "company",
	// Models.
	"GPT": "model", "GPT-2": "model", "GPT-3": "model", "GPT-4": "model", "Llama": "model", "Mistral": "model", "Qwen": "model",
	"Mixtral": "model", "Nemotron-4": "model", "OPT": "model", "DeepSeek": "model", "DeepSeek-V3": "model", "DualPipe": "schedule (DeepSeek-V3)", "DualPipeV": "schedule (DeepSeek's DualPipe repository: its V-shaped variant)", "MLA": "multi-head latent attention (DeepSeek)", "DeepEP": "library", "GShard": "system (Lepikhin et al. 2020)", "MegaBlocks": "system (Gale et al. 2023)",
	"Transformer": "architecture, kept in Latin by practitioners",
	// API, algorithm and operation names kept in English (GLOSSARY table).
	"AllReduce": "collective", "Reduce-Scatter": "collective", "AllGather": "collective", "All-to-All": "collective",
	"Tensor": "Tensor Core", "Core": "Tensor Core", "token": "term", "tokens": "term", "softmax": "function",
	"FlashAttention": "algorithm", "ZeRO": "optimizer", "ZeRO-1": "stage", "ZeRO-2": "stage", "ZeRO-3": "stage",
	"Stage": "ZeRO stage", "GEMM": "operation", "SIMT": "execution model", "SIMD": "execution model",
	"GPipe": "schedule", "1F1B": "schedule", "Adam": "optimizer", "AdamW": "optimizer", "LayerNorm": "operation",
	"RMSNorm": "operation", "GELU": "activation", "GeLU": "activation (the GELU check names it)", "ReLU": "activation", "SwiGLU": "activation", "Dropout": "operation", "MLP": "layer",
	"MoE": "mixture of experts", "MFU": "metric", "MTBF": "metric", "busbw": "metric symbol in formulas",
	"algbw": "metric symbol in formulas", "top-k": "term kept in Latin",
	// Number formats (GLOSSARY: FP32 / FP16 / BF16 / FP8) and IEEE values.
	"FP32": "format", "FP16": "format", "BF16": "format", "FP8": "format", "TF32": "format", "FP64": "format",
	"E4M3": "format", "E5M2": "format", "MXFP8": "format", "NVFP4": "format", "E8M0": "MX scale format", "E2M1": "FP4 element format", "FP4": "format", "RMSE": "metric (root-mean-square error)", "OCP": "Open Compute Project, the MX specification's publisher", "Blackwell": "GPU architecture", "float64": "Go type", "Inf": "IEEE value",
	"NaN": "IEEE value", "bias": "IEEE exponent bias", "emax": "formula symbol",
	// Unit symbols (rule 4) and functions in formulas.
	"FLOP": "unit", "FLOPs": "unit", "TFLOP": "unit", "PFLOP": "unit", "GHz": "unit", "KiB": "unit", "MiB": "unit",
	"GiB": "unit", "TiB": "unit", "max": "formula function", "min": "formula function", "log": "formula function",
	// People whose formulas and papers a source line cites.
	"Young": "author", "Daly": "author", "Korthikanti": "author", "Narayanan": "author", "Dao": "author",
	"Patarasuk": "author", "Lepikhin": "author", "Yuan": "author", "Rajbhandari": "author", "Shoeybi": "author", "Amdahl": "law",
	"NIC": "network interface card, after 网卡", "postMessage": "browser API", "else": "code keyword (if / else)",
	"FMA": "instruction", "RDMA": "protocol", "SHARP": "NVLink SHARP", "DRAM": "memory type", "BatchNorm": "operation",
	"arXiv": "preprint server (a citation)", "tanh": "formula function", "Chen": "author", "Brown": "author",
	"Calculon": "modelling tool (Isaev et al., SC '23) that the course's validation page compares against",
	// The product itself.
	"gpuscope": "product",
	"code":     "a code span of the course's prose, as the course test reads it",
}

// latinToken is a run of Latin letters and digits, joined by the inner
// punctuation of names (GPT-3, config.json, nccl-tests).
var latinToken = regexp.MustCompile(`[A-Za-z0-9]+(?:[-.'’_][A-Za-z0-9]+)*`)

var letterRun = regexp.MustCompile(`[A-Za-z]{3,}`)

// gloss is a Chinese term's English name in brackets right after it, as
// rule 5 asks at a term's first use: 线程束（warp）, 激活值（activations）.
var gloss = regexp.MustCompile(`([\p{Han}”])（[A-Za-z][A-Za-z0-9 -]{0,40}）`)

// Variant is a way of writing a term, a unit or a number that the
// glossary settles otherwise.
type Variant struct {
	Re   *regexp.Regexp
	Want string // what to write instead
	// Lang is "zh", "en" or "" (both).
	Lang string
	// Prose: the rule is about prose, not about values a reader types
	// (an error message's allowed range reads 64–65536, as typed).
	Prose bool
}

func v(lang, re, want string) Variant {
	return Variant{Re: regexp.MustCompile(re), Want: want, Lang: lang}
}

// Variants are the forbidden spellings (GLOSSARY rules 4 and 5 and its
// table), each with the glossary's form.
var Variants = []Variant{
	v("", `AllToAll|Alltoall|ALLTOALL`, "All-to-All (all-to-all in English prose)"),
	v("zh", `all-to-all|all-reduce|Allreduce|All-Reduce|reduce-scatter|all-gather`, "All-to-All, AllReduce, Reduce-Scatter, AllGather"),
	v("zh", `分支分化|分叉|线程束分裂|分裂的线程束|让线程束分裂`, "线程束分化"),
	v("zh", `芯片层`, "硅片层"),
	v("zh", `并行策略层`, "策略层"),
	v("zh", `种子(?:文章|文档|的)`, "原文"),
	v("zh", `梯度累加`, "梯度累积"),
	v("zh", `演示给我看`, "在模拟器中演示"),
	v("zh", `超额订阅`, "收敛比"),
	v("zh", `[张块台片][ ]?(?:GPU|H100|H200|A100|B200|显卡|卡)|[0-9十百千万]+ ?[张块]卡|单卡|多卡|每张卡`, "颗 GPU"),
	v("zh", `(?:GPU|H100|H200|A100|B200|显卡|卡|状态|激活值|权重|梯度|优化器)(?: ?的)? ?内存|内存(?:占用|预算|容量|放不下|装不下)`, "显存"),
	v("zh", `(?:相差|差距|快了|慢了|是|为|约|达到?|提升|提速|^|[，。；：、（])\s*×\s*[0-9]|[0-9.]×(?:\s*[\p{Han}，。；：、（）]|$)`, "N 倍 (never ×N in prose)"),
	v("zh", `(?:少|低|小|减少|降低|缩小|慢)了?约?\s*[0-9][0-9.,]*\s*倍`, "降到 1/N"),
	v("zh", `[0-9]\s?(?:min|h|d|hr|hrs|days?|hours?|minutes?)(?:[^A-Za-z0-9_-]|$)`, "分钟 / 小时 / 天"),
	v("zh", `[0-9.]+\s?[KMBT]\s*(?:个|参数|次|条|token|辆|颗)`, "万 / 亿 for large counts"),
	{Re: regexp.MustCompile(`(?:^|[^0-9.,])[0-9]{5,}(?:[^0-9]|$)`), Want: "digits grouped as 16,384 (units.Count)", Lang: "zh", Prose: true},
	v("zh", `\p{Han} +\p{Han}`, "no space between Chinese characters"),
	v("zh", `\p{Han}[+−]?[A-Za-z0-9]|[A-Za-z0-9%]\p{Han}`, "a space between Chinese and Latin letters or digits (rule 3)"),
	v("zh", `双工`, "双向"),
	v("zh", `显卡`, "GPU"),
	v("zh", `实验一下|动手玩`, "动手试试"),
	v("zh", `分片数据并行（FSDP）`, "FSDP（完全分片数据并行）"),
	v("zh", `(?:^|[^型])算力利用率（MFU）`, "模型算力利用率（MFU）"),
	// Issue 40: a term's one spelling, "hidden behind compute" said one
	// way, ratios that cannot be misread, one spelling of each unit.
	v("zh", `(?:^|[^（])张量核心`, "Tensor Core"),
	v("", `GeLU|Gelu`, "GELU"),
	v("zh", `(?:^|[^隐宝收储])藏|未被掩盖|没被掩盖|被掩盖的|暴露|掩护`, "隐藏 / 被隐藏 / 未被隐藏 (the numbers table's words; 暴露 for exposed is 未被隐藏)"),
	v("en", `\bhid(?:den|es|e|ing) under\b`, "hidden behind (compute, the backward pass)"),
	v("en", `(?:times|×)\s+(?:less|fewer|smaller|lower|below)\b`, "1/N of it, or the other side as N× (N times less reads as N−1 less)"),
	v("zh", `(?:(?:快|慢|高|低|小|(?:^|[^差最不])多|(?:^|[^至最])少|长|短|强|增加|增长|扩大|提高|提升|放大|缩小|降低|减少|涨)了?(?:约|将近|近|大约)?|大了?)\s*(?:[0-9][0-9.,–-]*|〇|[一二两三四五六七八九十百千几]+)\s*倍`,
		"是……的 N 倍, 提速 N%, 只有……的 1/N (快 N 倍 and 扩大了 N 倍 read as N+1)"),
	v("zh", `[0-9〇)）A-Z]\s*(?:秒|毫秒|微秒)(?:[^数级]|$)|（秒）`, "s, ms, µs"),
	v("", `[0-9X〇] KB\b`, "kB (10³ bytes) or KiB (2¹⁰ bytes)"),
	v("", power.String(), "10⁹, 2⁻¹⁰ (superscript powers of a number, in prose and formulas)"),
	{Re: regexp.MustCompile(`(?:^|[^0-9.,])[0-9]{1,3}0,000\s*(?:个|颗|条|倍|小时|台|步|token|参数)`), Want: "万 / 亿 for a round count (10 万颗, not 100,000 颗)", Lang: "zh", Prose: true},
	v("zh", `(?:^|[^几数第一二两三四五六七八九十])[三四五六七八九十](?:[个颗台条次层块轮份根趟倍种步段件道波名年天周遍]|小时|分钟|个月)`, "9 个, 6 年: numerals for counts as elsewhere"),
	v("zh", `(?:^|[^几数第一二两三四五六七八九十百千万])(?:[一二两三四五六七八九][十百千万]|十)[一二两三四五六七八九十百千万]*[多余来]?(?:[个颗台条次层块轮份根趟倍种步段件道波名年天周遍]|小时|分钟|个月)`,
		"16 颗, 50 万个, 1.6 万颗, 每 1,000 个: numerals for counts of ten and more"),
	v("zh", `(?:原文|论文|嵌入层)的算法`, "口径 (a paper's count, not its algorithm)"),
	v("zh", `重算`, "重计算"),
	v("zh", `内核|算子`, "核函数"),
	v("zh", `屋顶模型`, "屋顶线模型"),
	v("zh", `运算强度|计算强度`, "算术强度"),
	v("zh", `(?:^|[^微])批次大小`, "批大小 (微批次大小 for a micro-batch)"),
	v("zh", `(?:^|[^最])快了?约?〇`, "是……的〇 (a ratio placeholder after 快 reads as N+1)"),
	v("zh", `(?:相差|差距(?:为|是|有)?|(?:^|[^误偏])差了?)\s*(?:约|将近|近|大约)?\s*(?:[0-9][0-9.,–-]*|[一二两三四五六七八九十百千几]+)\s*倍`,
		"是……的 N 倍, 只有……的 1/N (相差 N 倍 reads as N or N+1, and says not which side is larger)"),
	v("zh", `(?:低|小|少|慢|短)于[^，。；：]{0,16}?(?:[0-9][0-9.,]*|[一二两三四五六七八九十百千几]+)\s*倍`, "只有……的 1/N (低于 X N 倍 reads as N+1)"),
	// The glossary table's terms, each against the other spellings a
	// translator reaches for: one spelling per term in Chinese text.
	v("zh", `(?:真实|完整的?|权重和|给)激活(?:$|[^值参函检显专活])`, "激活值 (activations; 激活 alone is the verb, 每个 token 激活 370 亿)"),
	v("zh", `流水并行`, "流水线并行"),
	v("zh", `微批(?:$|[^次])`, "微批次"),
	v("zh", `专家混合`, "混合专家（MoE）"),
	v("zh", `机架`, "机柜 (机柜级, rack-scale)"),
	v("zh", `容量系数`, "容量因子"),
	v("zh", `活跃参数`, "激活参数"),
	v("zh", `有效吞吐量`, "有效吞吐（goodput）"),
	v("zh", `梯度检查点`, "激活检查点（gradient checkpointing）"),
	v("zh", `3D ?并行`, "三维并行"),
	v("zh", `全[归规]约|规约`, "AllReduce, 归约"),
	v("zh", `上溢`, "溢出"),
	v("zh", `线程簇|线程包`, "线程束（warp）"),
	v("zh", `共享存储器?`, "共享内存"),
	v("zh", `流处理器|流多处理器`, "流式多处理器（SM）"),
	v("zh", `环[状式] ?AllReduce`, "环形 AllReduce"),
}

// power is a number raised to a numeric power with a caret, 10^9 or
// 2^−10, which the text writes 10⁹ and 2⁻¹⁰; a letter's power (2^−m,
// 2^(emax)) keeps its caret.
var power = regexp.MustCompile(`[0-9]\^[−-]?[0-9]`)

// Formula returns the problems of s, a formula block of the course
// (plain text, either language): a numeric power written with a caret.
func Formula(s string) []string {
	var out []string
	for _, loc := range power.FindAllStringIndex(s, -1) {
		out = append(out, fmt.Sprintf("%q: write 10⁹, 2⁻¹⁰ (superscript powers of a number), in …%s…", s[loc[0]:loc[1]], excerptAt(s, loc[0], loc[1])))
	}
	return out
}

// halfWidth are the punctuation marks that must be full-width next to
// Chinese text.
const halfWidth = ",.:;()?!"

// IsCJK reports whether r is a Chinese character or full-width
// punctuation.
func IsCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || r >= 0x3000 && r <= 0x303F || r >= 0xFF00 && r <= 0xFFEF
}

func isHan(r rune) bool { return unicode.Is(unicode.Han, r) }

// Chinese returns the problems of s, Chinese prose.
func Chinese(s string) []string { return chinese(s, true, nil) }

// ChineseInput returns the problems of s, a Chinese message about what a
// reader typed: it may spell the tokens of code in Latin script (the URL
// keys and values it names) and quotes numbers as they are typed.
func ChineseInput(s string, code ...string) []string { return chinese(s, false, code) }

func chinese(s string, prose bool, code []string) []string {
	var out []string
	rs := []rune(s)
	for i, r := range rs {
		if !strings.ContainsRune(halfWidth, r) {
			continue
		}
		prev, next := rune(0), rune(0)
		if i > 0 {
			prev = rs[i-1]
		}
		if i+1 < len(rs) {
			next = rs[i+1]
		}
		// A bracket counts only beside a Chinese character: a formula
		// may close its brackets before a full-width "；".
		near := IsCJK
		if r == '(' || r == ')' {
			near = isHan
		}
		if near(prev) || near(next) {
			out = append(out, fmt.Sprintf("half-width %q beside Chinese in …%s…", r, excerpt(rs, i)))
		}
	}
	orig := s
	s = gloss.ReplaceAllString(s, "$1（）")
	codeSet := map[string]bool{}
	for _, c := range code {
		codeSet[c] = true
	}
	for _, loc := range latinToken.FindAllStringIndex(s, -1) {
		tok := s[loc[0]:loc[1]]
		if _, ok := AllowedLatin[tok]; ok || codeSet[tok] || codeSet[strings.ToLower(tok)] {
			continue
		}
		for _, w := range letterRun.FindAllString(tok, -1) {
			if _, ok := AllowedLatin[w]; !ok && !codeSet[w] {
				out = append(out, fmt.Sprintf("English %q in …%s…", tok, excerptAt(s, loc[0], loc[1])))
				break
			}
		}
	}
	out = append(out, variants(orig, "zh", prose)...)
	return out
}

// ChineseCell returns the problems of s, a cell of a Chinese numbers
// table that code assembles from numbers and notes ("1,234（5.6%）"):
// a half-width bracket there is a note put in brackets by hand rather
// than through the catalogue's ui.paren, even beside a digit, where
// Chinese's own check (beside Chinese characters only) lets it pass.
// A bracket inside a formula, after a letter or a digit (min(a, b),
// 2(N−1)), is left alone.
func ChineseCell(s string) []string {
	var out []string
	for _, loc := range cellBracket.FindAllStringIndex(s, -1) {
		out = append(out, fmt.Sprintf("half-width bracket in a Chinese table cell: write （）(ui.paren), in …%s…", excerptAt(s, loc[0], loc[1])))
	}
	return out
}

// cellBracket is a note in half-width brackets after a space or at the
// start of a cell: "1,234 (5.6%)", "(8 颗 GPU)".
var cellBracket = regexp.MustCompile(`(?:^|\s)\([^()]*\)`)

// English returns the problems of s, English text.
func English(s string) []string {
	var out []string
	rs := []rune(s)
	for i, r := range rs {
		if unicode.Is(unicode.Han, r) || r >= 0x3000 && r <= 0x303F || r >= 0xFF01 && r <= 0xFF5E {
			out = append(out, fmt.Sprintf("Chinese %q in …%s…", r, excerpt(rs, i)))
			break
		}
	}
	return append(out, variants(s, "en", true)...)
}

func variants(s, lang string, prose bool) []string {
	var out []string
	for _, va := range Variants {
		if va.Lang != "" && va.Lang != lang || va.Prose && !prose {
			continue
		}
		for _, loc := range va.Re.FindAllStringIndex(s, -1) {
			out = append(out, fmt.Sprintf("%q: write %s, in …%s…", s[loc[0]:loc[1]], va.Want, excerptAt(s, loc[0], loc[1])))
		}
	}
	return out
}

func excerpt(rs []rune, i int) string {
	from, to := max(0, i-12), min(len(rs), i+12)
	return string(rs[from:to])
}

func excerptAt(s string, from, to int) string {
	a := []rune(s[:from])
	b := []rune(s[to:])
	return string(a[max(0, len(a)-12):]) + s[from:to] + string(b[:min(len(b), 12)])
}

// Words are the Latin tokens of s with three or more letters, sorted and
// counted: for reviewing what a Chinese text spells in Latin script.
func Words(s string) map[string]int {
	out := map[string]int{}
	for _, tok := range latinToken.FindAllString(s, -1) {
		if letterRun.MatchString(tok) {
			out[tok]++
		}
	}
	return out
}

// SortedKeys is a helper for reports.
func SortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
