package scenarios

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/errs"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/kernel"
	"github.com/gpuscope/gpuscope/engine/model"
	"github.com/gpuscope/gpuscope/engine/moe"
	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// refusal is one of the engine's refusals of a configuration: how to
// provoke it, the code it carries and its words in Chinese.
type refusal struct {
	name, code string
	err        func(t *testing.T) error
	zh         string
}

// planRefusal is the sandbox's default plan changed by edit, validated.
func planRefusal(edit func(c *parallel.Config)) func(t *testing.T) error {
	return func(t *testing.T) error {
		s, _ := Get("sandbox")
		c, err := planConfig(s.Defaults())
		if err != nil {
			t.Fatalf("the sandbox's defaults: %v", err)
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("the sandbox's defaults: %v", err)
		}
		edit(&c)
		return c.Validate()
	}
}

// modelRefusal is the preset id changed by edit, validated.
func modelRefusal(id string, edit func(m *model.Transformer)) func(t *testing.T) error {
	return func(t *testing.T) error {
		m, _ := model.Preset(id)
		edit(&m)
		return m.Validate()
	}
}

func hfRefusal(js string) func(t *testing.T) error {
	return func(t *testing.T) error {
		_, err := model.FromHFConfig([]byte(js), 0)
		return err
	}
}

func fragRefusal(frag string) func(t *testing.T) error {
	return func(t *testing.T) error {
		p, _, _ := NewPlayerAt(strings.Split(frag, "&")[0])
		st, errs := ApplyFragment(p.State(), frag)
		if len(errs) != 0 {
			t.Fatalf("%s: %v", frag, errs)
		}
		_, err := prepareState(st)
		return err
	}
}

func gpu(id string) hw.GPU { g, _ := hw.GPUByID(id); return g }

const hfShape = `"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 8, "vocab_size": 8`

// engineRefusalTable drives each code the engine (and the planner's
// kinds) refuses a configuration with, from as many of its sources as
// carry it.
var engineRefusalTable = []refusal{
	{name: "gpus_tp_pp", code: "gpus_tp_pp", err: fragRefusal("scenario=tensor-parallel&gpus=32"), zh: "gpus：32 颗 GPU 分不成 TP 16 × PP 4 的整组；GPU 数量须是 16 × 4 的整数倍"},
	{name: "no_plan", code: "no_plan", err: fragRefusal("scenario=strategy-planner&gpus=8&model=megatron-1t"), zh: "gpus：全局批大小为 1024 时，8 颗 H100 SXM 上找不到放得下 Megatron 1T 的方案；请增加 GPU，或换一个小一些的模型"},
	{name: "interleave_schedule", code: "interleave_schedule", err: planRefusal(func(c *parallel.Config) { c.Plan.Interleave = 2 }), zh: "interleave：每个阶段放 2 个模型块需要交错式调度，现在是 1F1B"},
	{name: "interleave_schedule zb-h1", code: "interleave_schedule", err: planRefusal(func(c *parallel.Config) { c.Plan.Interleave = 2; c.Plan.Schedule = parallel.ZBH1 }), zh: "interleave：每个阶段放 2 个模型块需要交错式调度，现在是 ZB-H1"},
	{name: "interleaved_needs", code: "interleaved_needs", err: planRefusal(func(c *parallel.Config) {
		c.Plan.Schedule, c.Plan.PP, c.Plan.DP = parallel.Interleaved, 1, c.Plan.DP*c.Plan.PP
	}), zh: "schedule：交错式调度要求 PP ≥ 2，且每个阶段至少 2 个模型块（现在 PP = 1，v = 1）"},
	{name: "micro_batches_pp plan", code: "micro_batches_pp", err: fragRefusal("scenario=pipeline-parallel&micro_batches=2&schedule=interleaved&interleave=2"), zh: "micro_batches：交错式调度要求微批次数是 PP 的整数倍（Megatron-LM 的条件）；现在是 2 个微批次，PP = 4"},
	{name: "micro_batches_pp timeline", code: "micro_batches_pp", err: func(*testing.T) error {
		_, err := parallel.BuildTimeline(parallel.Interleaved, 4, 6, 2, make([]float64, 4), make([]float64, 4), 0)
		return err
	}, zh: "micro_batches：交错式调度要求微批次数是 PP 的整数倍（Megatron-LM 的条件）；现在是 6 个微批次，PP = 4"},
	{name: "blocks", code: "blocks", err: func(*testing.T) error {
		_, err := parallel.BuildTimeline(parallel.OneFOneB, 4, 1<<20, 1, make([]float64, 4), make([]float64, 4), 0)
		return err
	}, zh: "pp × micro_batches × interleave：4194304 个块；最多 1048576 个（换更大的微批次，或更小的全局批大小）"},
	{name: "kv_heads", code: "kv_heads", err: modelRefusal("llama2-70b", func(m *model.Transformer) { m.KVHeads = 5 }), zh: "kv_heads：键值头数 5 必须能整除注意力头数 64"},
	{name: "heads_hidden", code: "heads_hidden", err: modelRefusal("llama2-70b", func(m *model.Transformer) { m.Heads, m.KVHeads = 3, 3 }), zh: "heads：注意力头数 3 必须能整除隐藏维度 8192"},
	{name: "tp_heads", code: "tp_heads", err: fragRefusal("scenario=tensor-parallel&tp=32&pp=2"), zh: "tp：TP 32 不能整除注意力头数 80，每颗 GPU 分不到整数个头"},
	{name: "layers_pp", code: "layers_pp", err: planRefusal(func(c *parallel.Config) { c.Model.Layers = 93 }), zh: "layers：93 层分不到 PP × v = 8 × 1 个模型块上（层数加 2 也不行：Llama 3 把嵌入层和输出层各算作一层来均衡）"},
	{name: "zero_pp", code: "zero_pp", err: planRefusal(func(c *parallel.Config) { c.Plan.ZeRO = 3 }), zh: "zero：ZeRO-3 不能和流水线并行（PP = 8）一起用；流水线并行下只允许 0–2。ZeRO-3 要为每个微批次把每个阶段的权重重新收集一遍；Llama 3 的 FSDP 切分了梯度和优化器状态（即 ZeRO-2），权重保持完整"},
	{name: "global_batch", code: "global_batch", err: planRefusal(func(c *parallel.Config) { c.Plan.GlobalBatch = 3 }), zh: "global_batch：全局批大小 3 不是 DP × 微批次大小 = 8 × 1 的整数倍"},
	{name: "nodes", code: "nodes", err: func(*testing.T) error {
		l, _ := hw.LinkByID("nvlink4")
		return collective.Config{Op: collective.AllReduce, Algo: collective.Ring, Ranks: 4, Bytes: 1 << 20, Link: l, Nodes: 8, Inter: l}.Validate()
	}, zh: "nodes：8 个节点不行；允许 1–4，而且要把 4 颗 GPU 平均分开"},
	{name: "block_fit", code: "block_fit", err: func(*testing.T) error {
		_, err := kernel.Place(kernel.LaunchConfig{GPU: gpu("h100"), Blocks: 1, ThreadsPerBlock: 1024, RegistersPerThread: 255})
		return err
	}, zh: "config：一个线程块（1024 个线程 × 每线程 255 个寄存器，0 字节共享内存）放不进 H100 SXM 的一个 SM，寄存器不够"},
	{name: "smem", code: "smem", err: func(*testing.T) error {
		_, err := kernel.Place(kernel.LaunchConfig{GPU: gpu("a100-80gb"), Blocks: 1, ThreadsPerBlock: 32, RegistersPerThread: 32, SharedMemPerBlock: 1 << 20})
		return err
	}, zh: "smem：每个线程块 1048576 字节共享内存；A100 80GB 上允许 0–166912 字节"},
	{name: "dtype_allowed", code: "dtype_allowed", err: func(*testing.T) error {
		_, err := kernel.NewRoofline(gpu("a100-80gb"), hw.FP8)
		return err
	}, zh: "dtype：A100 80GB 没有 FP8 计算单元；可选值为 fp32, tf32, fp16, bf16"},
	{name: "dtype gemm", code: "dtype", err: func(*testing.T) error {
		_, err := kernel.GEMM(kernel.GEMMConfig{M: 64, N: 64, K: 64, Dtype: hw.FP8, GPU: gpu("a100-80gb"), Kernel: kernel.TensorTiled})
		return err
	}, zh: "dtype：A100 80GB 没有 FP8 计算单元"},
	{name: "dtype plan", code: "dtype", err: planRefusal(func(c *parallel.Config) { c.Cluster.GPU, c.Plan.Dtype = gpu("a100-80gb"), hw.FP8 }), zh: "dtype：A100 80GB 没有 FP8 计算单元"},
	{name: "mtp_layers", code: "mtp_layers", err: modelRefusal("deepseek-v3", func(m *model.Transformer) { m.MTPLayers = 62 }), zh: "多 token 预测模块数：62；允许 0–61（不超过模型的层数）"},
	{name: "hf_range model", code: "hf_range", err: modelRefusal("llama2-70b", func(m *model.Transformer) { m.Layers = 0 }), zh: "layers：0；允许 1–1000"},
	{name: "hf_range plan", code: "hf_range", err: planRefusal(func(c *parallel.Config) { c.Plan.MicroBatch = 1 << 17 }), zh: "micro-batch：131072；允许 1–65536"},
	{name: "hf_range kernel", code: "hf_range", err: func(*testing.T) error {
		_, err := kernel.Place(kernel.LaunchConfig{GPU: gpu("h100"), Blocks: 1, ThreadsPerBlock: 2048, RegistersPerThread: 32})
		return err
	}, zh: "threads-per-block：2048；允许 1–1024"},
	{name: "hf_range moe", code: "hf_range", err: func(*testing.T) error {
		return moe.Config{Experts: 1}.Validate()
	}, zh: "experts：1；允许 2–4096"},
	{name: "hf_range config.json", code: "hf_range", err: hfRefusal(`{"model_type": "mixtral", ` + hfShape + `, "num_key_value_heads": 2, "num_local_experts": 0}`), zh: "num_local_experts：0；允许 1–65536"},
	{name: "positive", code: "positive", err: modelRefusal("llama2-70b", func(m *model.Transformer) { m.FFNSize = 0 }), zh: "ffn：0；必须为正数"},
	{name: "mla_dims", code: "mla_dims", err: modelRefusal("deepseek-v3", func(m *model.Transformer) { m.QKRope = 0 }), zh: "每个头不带与带旋转位置编码的 QK 维度及 V 维度：128、0、128；使用潜在注意力（MLA）时均须为正"},
	{name: "mla_kv", code: "mla_kv", err: modelRefusal("llama2-70b", func(m *model.Transformer) { m.QLoRA = 128 }), zh: "kv_lora_rank：0，而 q_lora_rank 为 128、各头维度为 0、0、0；潜在注意力需要大于 0 的 kv_lora_rank（若为 0，其余潜在注意力尺寸也须全为 0：标准注意力）"},
	{name: "moe_swiglu", code: "moe_swiglu", err: modelRefusal("mixtral-8x7b", func(m *model.Transformer) { m.FFN = model.GeLU }), zh: "前馈网络类型：gelu；混合专家的专家网络须为 SwiGLU"},
	{name: "ep_experts", code: "ep_experts", err: planRefusal(func(c *parallel.Config) { c.Model, _ = model.Preset("mixtral-8x7b"); c.Plan.EP = 3 }), zh: "ep：EP = 3 不能整除模型的 8 个专家；EP 组里每颗 GPU 放专家数 ÷ EP 个专家"},
	{name: "ep_dp", code: "ep_dp", err: planRefusal(func(c *parallel.Config) { c.Model, _ = model.Preset("mixtral-8x7b"); c.Plan.EP, c.Plan.DP = 8, 4 }), zh: "ep：EP = 8 不能整除 DP = 4；专家并行是从数据并行里划出来的（gpus ÷ pp）"},
	{name: "ep_dense", code: "ep_dense", err: planRefusal(func(c *parallel.Config) { c.Plan.EP = 2 }), zh: "ep：稠密模型的 EP = 2；只允许 0 或 1（专家并行分摊的是混合专家模型的专家）"},
	{name: "block_scaled", code: "block_scaled", err: planRefusal(func(c *parallel.Config) { c.Plan.BlockScaled = true }), zh: "block_scaled：细粒度缩放的 FP8 需要 dtype 为 fp8"},
	{name: "seq_cp", code: "seq_cp", err: planRefusal(func(c *parallel.Config) { c.Model.Seq, c.Plan.CP, c.Plan.DP = 2050, 2, c.Plan.DP/2 }), zh: "seq：2050 个 token 不能被 2·CP = 4 整除（负载均衡的因果切分让每个 CP rank 分到每条序列的两块）"},
	{name: "gpus_product", code: "gpus_product", err: planRefusal(func(c *parallel.Config) { c.Plan.CP = 2 }), zh: "gpus：512 颗 GPU 分不成 TP × CP × PP × DP = 8 × 2 × 8 × 8 = 1024；GPU 数量须是 TP × CP × PP 的整数倍"},
	{name: "gpus_product3", code: "gpus_product3", err: planRefusal(func(c *parallel.Config) { c.Plan.DP++ }), zh: "gpus：512 颗 GPU 分不成 TP × PP × DP = 8 × 8 × 9 = 576；GPU 数量须是 TP × PP 的整数倍"},
	{name: "dualpipe_pp", code: "dualpipe_pp", err: planRefusal(func(c *parallel.Config) {
		c.Plan.Schedule, c.Plan.PP, c.Plan.DP = parallel.DualPipe, 1, c.Plan.DP*c.Plan.PP
	}), zh: "schedule：DualPipe 需要偶数个流水线阶段，至少 2 个（现在 PP = 1）"},
	{name: "dualpipe_mb", code: "dualpipe_mb", err: planRefusal(func(c *parallel.Config) {
		c.Plan.Schedule, c.Plan.GlobalBatch = parallel.DualPipe, c.Plan.DP*c.Plan.MicroBatch*2
	}), zh: "micro_batches：2 个微批次；DualPipe 要求偶数个，至少 2 × PP = 16 个"},
	{name: "hf_size", code: "hf_size", err: hfRefusal(`{"x": "` + strings.Repeat("x", 1<<20) + `"}`), zh: "config.json：1048585 字节；最多 1048576 字节（config.json 只有几 KB）"},
	{name: "hf_deep", code: "hf_deep", err: hfRefusal(strings.Repeat("[", 5000) + strings.Repeat("]", 5000)), zh: "config.json：嵌套超过 1000 层；config.json 只嵌套两三层"},
	{name: "hf_model_type", code: "hf_model_type", err: hfRefusal(`{"model_type": "falcon", ` + hfShape + `}`), zh: "config.json：gpuscope 不认识 model_type “falcon” 这种架构；可选值为 deepseek_v2, deepseek_v3, gpt2, llama, llama4_text, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe"},
	{name: "hf_needs_type", code: "hf_needs_type", err: hfRefusal(`{` + hfShape + `, "n_routed_experts": 8}`), zh: "config.json：缺少 model_type；只有 model_type deepseek_v2, deepseek_v3 读取 n_routed_experts，请写明这个模型是哪一种"},
	{name: "hf_not_read", code: "hf_not_read", err: hfRefusal(`{"model_type": "llama", ` + hfShape + `, "num_local_experts": 8}`), zh: "config.json：model_type llama 不读取 num_local_experts，而它会改变参数量；请删去它，或改用读取它的 model_type：deepseek_v3, llama4_text, mixtral, qwen3_moe"},
	{name: "hf_alias", code: "hf_alias", err: hfRefusal(`{"model_type": "mixtral", ` + hfShape + `, "num_key_value_heads": 2, "num_local_experts": 8, "num_experts": 4}`), zh: "config.json：num_local_experts 为 8、num_experts 为 4，在 model_type mixtral 里是同一个设置；请只给一个"},
	{name: "hf_missing", code: "hf_missing", err: hfRefusal(`{"hidden_size": 4096}`), zh: "config.json：缺少 num_hidden_layers"},
	{name: "hf_positive", code: "hf_positive", err: hfRefusal(`{"hidden_size": 0, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 8, "vocab_size": 8}`), zh: "config.json：hidden_size 为 0，必须是正数"},
	{name: "hf_act", code: "hf_act", err: hfRefusal(`{` + hfShape + `, "hidden_act": "tanh"}`), zh: "config.json：不支持 hidden_act “tanh”；可选 silu、swish、gelu 等"},
	{name: "hf_router", code: "hf_router", err: hfRefusal(`{"model_type":"deepseek_v3","hidden_act":"silu","num_hidden_layers":4,"hidden_size":64,"num_attention_heads":4,"intermediate_size":128,` +
		`"vocab_size":100,"max_position_embeddings":64,"n_routed_experts":8,"num_experts_per_tok":2,"moe_intermediate_size":32,"scoring_func":"relu"}`), zh: "config.json：scoring_func 为“relu”，这种路由方式尚未建模；可选值为 softmax, sigmoid"},
	{name: "hf_unmodelled", code: "hf_unmodelled", err: hfRefusal(`{` + hfShape + `, "text_config": {}}`), zh: "config.json：text_config：尚未建模（多模态模型的配置，语言模型嵌套在其中；请粘贴语言模型自己的 config.json）"},
	{name: "hf_unmodelled gemma", code: "hf_unmodelled", err: hfRefusal(`{"model_type": "gemma2", ` + hfShape + `}`), zh: "config.json：model_type：尚未建模（Gemma 的门控 GELU 和额外的归一化层）"},
	{name: "hf_type", code: "hf_type", err: hfRefusal(`{"hidden_size": "big"}`), zh: "config.json：hidden_size 的值类型不对（JSON string，应为 an integer）"},
	{name: "hf_json syntax", code: "hf_json", err: hfRefusal(`{`), zh: "config.json：无法按 JSON 读出，请粘贴完整的文件"},
	{name: "hf_json not an integer", code: "hf_json", err: hfRefusal(`{"hidden_size": 1.5}`), zh: "config.json：无法按 JSON 读出，请粘贴完整的文件"},
	{name: "hf_json dropout", code: "hf_json", err: hfRefusal(`{` + hfShape + `, "attention_dropout": 1}`), zh: "config.json：无法按 JSON 读出，请粘贴完整的文件"},
}

// Each refusal carries its code, and reads in Chinese as the catalogue
// words it.
func TestEngineRefusalCodes(t *testing.T) {
	for _, r := range engineRefusalTable {
		err := r.err(t)
		if err == nil {
			t.Errorf("%s: no error", r.name)
			continue
		}
		e, ok := errors.AsType[*errs.Error](err)
		if !ok || e.Code != r.code {
			t.Errorf("%s: %v (%T), want code %s", r.name, err, err, r.code)
			continue
		}
		ie := engineError("config", "v", err)
		if got := ie.Localize("zh"); got != r.zh {
			t.Errorf("%s: in Chinese\n %q, want\n %q", r.name, got, r.zh)
		}
	}
}

// engineCodes are the codes the sources give errs.New and errs.F (and
// errs' own helpers): every refusal the engine and the kinds can make.
func engineCodes(t *testing.T) []string {
	var files []string
	for _, glob := range []string{"../engine/*/*.go", "*.go"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	var codes []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, call := range []string{"New(\"", "F(\""} {
			if filepath.Base(filepath.Dir(f)) != "errs" {
				call = "errs." + call
			}
			for _, part := range strings.Split(string(b), call)[1:] {
				if code, _, ok := strings.Cut(part, "\""); ok && !slices.Contains(codes, code) {
					codes = append(codes, code)
				}
			}
		}
	}
	slices.Sort(codes)
	if len(codes) < 40 {
		t.Fatalf("found %d codes in the sources (%v); is the scan broken?", len(codes), codes)
	}
	return codes
}

// fills are the placeholders of an error.engine.* value that e's code and
// arguments fill (engineError's conventions: x_up and x_id fill x, the
// model its name; hf_unmodelled's name fills why too).
func fills(e *errs.Error) []string {
	var names []string
	for i := 0; i+1 < len(e.Args); i += 2 {
		n := strings.TrimSuffix(strings.TrimSuffix(e.Args[i], "_up"), "_id")
		names = append(names, n)
	}
	if e.Code == "hf_unmodelled" {
		names = append(names, "why")
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// Every code the sources can give has an entry in each catalogue whose
// placeholders are exactly what its arguments fill (besides the field,
// value and detail every input error fills), and the table drives it.
func TestEngineCodesCatalogued(t *testing.T) {
	args := map[string][]string{}
	for _, r := range engineRefusalTable {
		e, ok := errors.AsType[*errs.Error](r.err(t))
		if !ok {
			continue // TestEngineRefusalCodes says why
		}
		if prev, seen := args[e.Code]; seen && !slices.Equal(prev, fills(e)) {
			t.Errorf("%s: code %s fills %v here, %v elsewhere", r.name, e.Code, fills(e), prev)
		}
		args[e.Code] = fills(e)
	}
	for _, code := range engineCodes(t) {
		want, ok := args[code]
		if !ok {
			t.Errorf("code %s: no refusal of engineRefusalTable gives it", code)
			continue
		}
		for _, lang := range i18n.Langs() {
			key := "error.engine." + code
			if !i18n.Has(lang, key) {
				t.Errorf("%s: no %s", lang, key)
				continue
			}
			var got []string
			for _, p := range placeholder.FindAllString(i18n.T(lang, key), -1) {
				if p = strings.Trim(p, "{}"); p != "field" && p != "value" && p != "detail" {
					got = append(got, p)
				}
			}
			slices.Sort(got)
			if got = slices.Compact(got); !slices.Equal(got, want) {
				t.Errorf("%s %s: placeholders %v, but code %s fills %v", lang, key, got, code, want)
			}
		}
	}
}

// A refusal's arguments are the values its English message gives.
func TestEngineRefusalArgsInMessage(t *testing.T) {
	for _, r := range engineRefusalTable {
		e, ok := errors.AsType[*errs.Error](r.err(t))
		if !ok {
			continue
		}
		for i := 1; i < len(e.Args); i += 2 {
			if !strings.Contains(e.Error(), e.Args[i]) {
				t.Errorf("%s: argument %s = %q is not in the message %q", r.name, e.Args[i-1], e.Args[i], e.Error())
			}
		}
	}
}

// The words come from the code and its arguments: rewording the English
// message, or wrapping the error, changes no language's words but the
// English detail.
func TestEngineErrorIgnoresEnglish(t *testing.T) {
	for _, r := range engineRefusalTable {
		err := r.err(t)
		e, ok := errors.AsType[*errs.Error](err)
		if !ok {
			continue
		}
		reworded := &errs.Error{Code: e.Code, Args: e.Args, Msg: "reworded: " + strings.ToUpper(e.Msg)}
		for _, alt := range []error{reworded, fmt.Errorf("wrapped: %w", reworded)} {
			got, want := engineError("config", "v", alt), engineError("config", "v", err)
			if got.Key != want.Key || got.Localize("zh") != want.Localize("zh") {
				t.Errorf("%s: %v words as %s %q, want %s %q", r.name, alt, got.Key, got.Localize("zh"), want.Key, want.Localize("zh"))
			}
		}
	}
	// Without a code the message is the detail, in every language.
	plain := engineError("config", "v", errors.New("gpus: 3 not divisible by tp × pp = 2 × 2"))
	if plain.Key != "error.command" || !strings.Contains(plain.Localize("zh"), "gpus: 3 not divisible") {
		t.Errorf("an error without a code: %s %q, want error.command with the message", plain.Key, plain.Localize("zh"))
	}
}
