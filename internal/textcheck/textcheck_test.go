package textcheck

import "testing"

// The patterns of issue 40, each as the editor found it and as it was
// rewritten: the old text fails, the new passes.
func TestIssue40Patterns(t *testing.T) {
	for _, c := range []struct{ bad, good string }{
		{"〇走〇：〇，张量核心等它完成", "〇走〇：〇，Tensor Core 等它完成"},
		{"每个 SM 里还有 4 个 Tensor Core（张量核心）", ""},
		{"逐元素核函数（加法、GeLU、Dropout）", "逐元素核函数（加法、GELU、Dropout）"},
		{"其中 3 ms 藏在反向传播之后", "其中 3 ms 隐藏在反向传播背后"},
		{"未被掩盖的 DP AllReduce", "未被隐藏的 DP AllReduce"},
		{"有 202 ms 没藏住", "有 202 ms 未被隐藏"},
		{"暴露在外的通信只有 98.1 ms", "未被隐藏的通信只有 98.1 ms"},
		{"只有这一个微批次的反向能用来掩护通信", "只有这一个微批次的反向能用来隐藏通信"},
		{"GPU 靠驻留的线程束掩盖内存延迟", ""},
		{"计算快 1.2 倍", "计算提速 20%"},
		{"批次扩大了〇倍", "批次扩大到原来的〇倍"},
		{"延迟更是低几十倍", "延迟更是只有它的几十分之一"},
		{"大约慢九倍", "用时大约是原来的 9 倍"},
		{"比 CPU 快〇", "速度是 CPU 的〇"},
		{"最快〇 TB/s", ""},
		{"变成大约 4 倍", ""},
		{"用时差不多 2 倍，最多 3 倍", ""},
		{"每次写 30 秒", "每次写 30 s"},
		{"每次写 C 秒", "每次写入用时 C"},
		{"写一次检查点的耗时（秒）", "写一次检查点的耗时（s）"},
		{"GPU 的时间降到纳秒级，启动要几微秒", ""},
		{"这一课用四种方法", "这一课用 4 种方法"},
		{"完成三步运算", "完成 3 步运算"},
		{"只重算注意力的 softmax", "只重新计算注意力的 softmax"},
		{"受内存限制的算子", "内存瓶颈的核函数"},
		{"[屋顶模型]", "[屋顶线模型]"},
		{"和批次大小对得上", "和批大小对得上"},
		{"微批次大小为 8", ""},
		{"在九个节点上", "在 9 个节点上"},
		{"原文中的集群有 10,000 颗 GPU", "原文中的集群有 1 万颗 GPU"},
		{"每块另加 1 KB", "每块另加 1 KiB"},
		{"175 × 10^9 个参数", "175 × 10⁹ 个参数"},
		{"（ZeRO 论文的算法）", "（ZeRO 论文的口径）"},
		{"跨两个节点用时 22.2 ms，相差 16.4 倍", "跨两个节点用时 22.2 ms，是机柜的 16.4 倍"},
		{"1.0 µs 对 5.0 µs，相差 5.0 倍", "1.0 µs 对 5.0 µs，后者是前者的 5.0 倍"},
		{"离拐点 295 仍差约 60 倍", "只有拐点 295 的约 1/60"},
		{"低于拐点 60 倍", "只有拐点的 1/60"},
		{"用时差不多 2 倍", ""},
		{"误差约为 4 倍", ""},
		{"一万六千颗放在一起", "1.6 万颗放在一起"},
		{"CP 32 上的五十万个 token", "CP 32 上的 50 万个 token"},
		{"最长一百万个 token", "最长 100 万个 token"},
		{"GPU 上一万多个通道", "GPU 上 1 万多个通道"},
		{"相当于一千来个时钟周期", "相当于约 1,000 个时钟周期"},
		{"每一千个值里有一个离群值", "每 1,000 个值里有一个离群值"},
		{"十六颗 GPU", "16 颗 GPU"},
		{"将近六年", "将近 6 年"},
		{"几十个线程束、成千上万个线程、上百个核函数、两三层", ""},
		{"只有屋顶的三十分之一", ""},
		{"(2 − 2^−7) × 2^127", "(2 − 2⁻⁷) × 2¹²⁷"},
		// A glossary term's other spellings.
		{"比真实激活里常见的离群值更大", "比真实激活值里常见的离群值更大"},
		{"给激活的每个 1×128 分块", "给激活值的每个 1×128 分块"},
		{"与完整激活同样大小的 AllReduce", "与完整激活值同样大小的 AllReduce"},
		{"每个 token 激活 376 亿", ""},
		{"激活显存只需一个微批次的量", ""},
		{"流水并行的气泡", "流水线并行的气泡"},
		{"每个微批的激活值", "每个微批次的激活值"},
		{"专家混合模型", "混合专家模型"},
		{"机架级 NVLink", "机柜级 NVLink"},
		{"活跃参数 370 亿", "激活参数 370 亿"},
		{"全规约", "AllReduce"},
		{"3D 并行", "三维并行"},
	} {
		if c.bad != "" && c.good != "" && len(Chinese(c.bad)) == 0 {
			t.Errorf("Chinese(%q) passes, want a problem", c.bad)
		}
		good := c.good
		if good == "" {
			good = c.bad // a form the checks must leave alone
		}
		if p := Chinese(good); len(p) != 0 {
			t.Errorf("Chinese(%q) = %q, want no problem", good, p)
		}
	}
	if len(Formula("≈ 3.39 × 10^38")) == 0 || len(Formula("≈ 3.39 × 10³⁸, 2^(e_max − bias), 2^(1 − bias), 2^−M")) != 0 {
		t.Error("Formula: want a number's power with a caret to fail, a letter's to pass")
	}
	// A note in half-width brackets in a table cell built in code.
	if len(ChineseCell("3,961 (6.04%)")) == 0 || len(ChineseCell("3,961（6.04%）")) != 0 || len(ChineseCell("2(N−1)/N")) != 0 {
		t.Error("ChineseCell: want the note in half-width brackets, and only it, to fail")
	}
	// Kilobytes have two spellings, kB and KiB; a typed 1KB is input.
	if len(English("12 ms hides under the backward")) == 0 || len(English("12 ms is hidden behind the backward")) != 0 {
		t.Error("English: want hides under to fail and hidden behind to pass")
	}
	if len(English("about 60 times below the ridge")) == 0 || len(English("only about 1/60 of the ridge")) != 0 {
		t.Error("English: want N times below to fail and 1/N of to pass")
	}
	if len(English("moves 17× fewer bytes")) == 0 || len(English("still about 200 times less")) == 0 || len(English("moves 17× FlashAttention's bytes")) != 0 {
		t.Error("English: want N× fewer and N times less to fail, N× the bytes to pass")
	}
	if len(English("a 64 KB message")) == 0 || len(English("a 64 kB message")) != 0 || len(English("allowed 1KB–16GB")) != 0 {
		t.Error("English: want 64 KB to fail, 64 kB and a typed 1KB to pass")
	}
}
