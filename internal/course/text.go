package course

import "strings"

// langs are the course's languages, in the order the pages offer them.
var langs = []string{"en", "zh"}

// htmlLang is each language's <html lang> (BCP 47).
var htmlLang = map[string]string{"en": "en", "zh": "zh-Hans"}

// other is the language the language switch offers.
func other(lang string) string {
	if lang == "en" {
		return "zh"
	}
	return "en"
}

// ui holds the course pages' own words; the lessons' titles, summaries
// and numbers come from the simulator's catalogue (scenarios/i18n).
var ui = map[string]map[string]string{
	"en": {
		"course":                     "gpuscope course",
		"tagline":                    "How large models are trained on GPU clusters, with the simulator beside the text",
		"layer.silicon":              "Silicon",
		"layer.strategy":             "Strategy",
		"layer.infrastructure":       "Infrastructure",
		"layer.silicon.about":        "How one GPU computes: cores, memory and kernels.",
		"layer.strategy.about":       "How a model too big for one GPU is split across many.",
		"layer.infrastructure.about": "How the GPUs talk: links, collectives, failures.",
		"lessons":                    "Lessons",
		"home":                       "Course home",
		"glossary":                   "Glossary",
		"search":                     "Search",
		"search.label":               "Search the course",
		"search.placeholder":         "Search…",
		"search.button":              "Search",
		"search.none":                "No page matches every word of “{q}”.",
		"search.count":               "{n} results for “{q}”",
		"search.count1":              "1 result for “{q}”",
		"search.hint":                "Type words to find: every word must appear (upper or lower case alike).",
		"search.noscript":            "The search runs in your browser and needs JavaScript.",
		"search.loading":             "Loading the index…",
		"search.failed":              "The search index could not be loaded.",
		"lang.switch":                "中文",
		"lang.switch.label":          "阅读中文版",
		"skip":                       "Skip to the text",
		"show_me":                    "Show me",
		"source":                     "Source:",
		"numbers.caption":            "Step {n}: {title}",
		"numbers.where":              "Where does this number come from?",
		"teacher":                    "Teacher notes",
		"questions":                  "The lesson's questions: predict, then observe",
		"question.step":              "Step {n}",
		"question.answer":            "Expected answer:",
		"present":                    "Present",
		"present.title":              "Open the lesson full screen, step by step, for a class",
		"print":                      "Print handout",
		"open_sim":                   "Open in the full simulator",
		"sim.title":                  "gpuscope simulator: {title}",
		"sim.label":                  "The simulator",
		"prev":                       "Previous lesson",
		"next":                       "Next lesson",
		"handout.figure":             "The lesson's picture in the simulator",
		"handout.numbers":            "Numbers",
		"handout.formulas":           "Formulas",
		"glossary.intro":             "The terms the lessons use, in English and Chinese.",
		"glossary.lesson":            "Shown in:",
		"glossary.see":               "See also:",
		"paren.open":                 " (",
		"paren.close":                ")",
		"list.sep":                   ", ",
		"footer":                     "gpuscope: an in-browser simulator of large-model training. Every number on these pages is computed by its engine.",
		"offline":                    "Pages you have opened stay readable offline.",
	},
	"zh": {
		"course":                     "gpuscope 课程",
		"tagline":                    "大模型如何在 GPU 集群上训练：正文旁边就是模拟器",
		"layer.silicon":              "硅片层",
		"layer.strategy":             "策略层",
		"layer.infrastructure":       "基础设施层",
		"layer.silicon.about":        "一颗 GPU 如何计算：核心、内存与核函数。",
		"layer.strategy.about":       "一颗 GPU 放不下的模型，如何拆到许多 GPU 上。",
		"layer.infrastructure.about": "GPU 之间如何通信：链路、集合通信与故障。",
		"lessons":                    "课程目录",
		"home":                       "课程首页",
		"glossary":                   "术语表",
		"search":                     "搜索",
		"search.label":               "搜索课程",
		"search.placeholder":         "搜索…",
		"search.button":              "搜索",
		"search.none":                "没有页面同时包含“{q}”中的每个词。",
		"search.count":               "“{q}”的搜索结果：{n} 条",
		"search.count1":              "“{q}”的搜索结果：1 条",
		"search.hint":                "输入要查找的词：每个词都必须出现（不区分大小写）。",
		"search.noscript":            "搜索在浏览器中运行，需要启用 JavaScript。",
		"search.loading":             "正在加载索引…",
		"search.failed":              "无法加载搜索索引。",
		"lang.switch":                "English",
		"lang.switch.label":          "Read this page in English",
		"skip":                       "跳到正文",
		"show_me":                    "在模拟器中演示",
		"source":                     "来源：",
		"numbers.caption":            "第 {n} 步：{title}",
		"numbers.where":              "这个数字从哪里来？",
		"teacher":                    "教师备注",
		"questions":                  "本课的提问：先预测，再观察",
		"question.step":              "第 {n} 步",
		"question.answer":            "参考答案：",
		"present":                    "演示模式",
		"present.title":              "全屏逐步打开本课，用于课堂讲解",
		"print":                      "打印讲义",
		"open_sim":                   "在完整模拟器中打开",
		"sim.title":                  "gpuscope 模拟器：{title}",
		"sim.label":                  "模拟器",
		"prev":                       "上一课",
		"next":                       "下一课",
		"handout.figure":             "本课在模拟器中的画面",
		"handout.numbers":            "数字",
		"handout.formulas":           "公式",
		"glossary.intro":             "课程中使用的术语，中英对照。",
		"glossary.lesson":            "见课程：",
		"glossary.see":               "另见：",
		"paren.open":                 "（",
		"paren.close":                "）",
		"list.sep":                   "、",
		"footer":                     "gpuscope：在浏览器中运行的大模型训练模拟器。本页的每个数字都由它的引擎计算得出。",
		"offline":                    "打开过的页面离线时仍可阅读。",
	},
}

// tr returns a course string with {name} placeholders filled from
// name/value pairs.
func tr(lang, key string, args ...string) string {
	s, ok := ui[lang][key]
	if !ok {
		s = "⟦" + key + "⟧"
	}
	for i := 0; i+1 < len(args); i += 2 {
		s = strings.ReplaceAll(s, "{"+args[i]+"}", args[i+1])
	}
	return s
}
