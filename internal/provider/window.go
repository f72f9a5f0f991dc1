package provider

import "strings"

// DefaultContextWindow is the window assumed for unknown models.
const DefaultContextWindow = 128000

// contextWindows maps model name prefixes (lower case, without a vendor
// prefix) to context window sizes in tokens; the longest match wins.
var contextWindows = map[string]int{
	"gpt-3.5-turbo": 16385, "gpt-4": 8192, "gpt-4-32k": 32768, "gpt-4-turbo": 128000,
	"gpt-4o": 128000, "gpt-4o-mini": 128000, "gpt-4.1": 1047576, "gpt-4.5": 128000,
	"gpt-5": 400000, "gpt-oss": 131072, "chatgpt-4o": 128000,
	"o1": 200000, "o1-mini": 128000, "o1-preview": 128000, "o3": 200000, "o3-mini": 200000, "o4-mini": 200000,
	"claude": 200000, "claude-2": 100000, "claude-sonnet-4-5": 200000, "claude-sonnet-4.5": 200000,
	"gemini": 1048576, "gemini-1.5-pro": 2097152, "gemini-1.0": 32760, "gemini-pro": 32760,
	"gemini-2.0": 1048576, "gemini-2.5": 1048576, "gemma": 8192, "gemma2": 8192, "gemma-2": 8192,
	"gemma3": 131072, "gemma-3": 131072,
	"llama2": 4096, "llama-2": 4096, "llama3": 8192, "llama-3": 8192,
	"llama3.1": 128000, "llama-3.1": 128000, "llama3.2": 128000, "llama-3.2": 128000,
	"llama3.3": 128000, "llama-3.3": 128000, "llama-4": 1048576, "llama4": 1048576,
	"qwen": 32768, "qwen2": 32768, "qwen2.5": 32768, "qwen-2.5": 32768, "qwen3": 131072,
	"qwen3-coder": 262144, "qwq": 131072, "qwen-max": 32768, "qwen-plus": 131072, "qwen-turbo": 1000000,
	"mistral": 32768, "mistral-large": 131072, "mistral-medium": 131072, "mistral-small": 32768,
	"mistral-nemo": 131072, "mixtral": 32768, "codestral": 256000, "devstral": 131072, "ministral": 131072,
	"deepseek": 128000, "deepseek-chat": 128000, "deepseek-v3": 128000, "deepseek-r1": 64000,
	"deepseek-reasoner": 64000, "deepseek-coder": 128000,
	"kimi-k2": 131072, "kimi-k2-0905": 262144, "kimi-k2.5": 262144, "moonshot-v1-8k": 8192,
	"moonshot-v1-32k": 32768, "moonshot-v1-128k": 131072,
	"grok-2": 131072, "grok-3": 131072, "grok-4": 256000, "grok-code-fast": 256000,
	"glm-4": 128000, "glm-4.5": 131072, "glm-4.6": 200000,
	"command-r": 128000, "command-a": 256000, "phi3": 128000, "phi-3": 128000, "phi4": 16384, "phi-4": 16384,
}

// ContextWindow returns the context window in tokens of a model, by
// longest known prefix of its name. Vendor prefixes ("anthropic/",
// "openai/"), tags (":free", ":8b") and case are ignored; unknown models
// get DefaultContextWindow.
func ContextWindow(model string) int {
	name := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if i := strings.IndexByte(name, ':'); i >= 0 {
		name = name[:i]
	}
	for n := len(name); n > 0; n-- {
		if w, ok := contextWindows[name[:n]]; ok && boundary(name, n) {
			return w
		}
	}
	return DefaultContextWindow
}

// boundary reports whether a prefix of length n ends at a name boundary
// (the end, or before '-', '.', '_' or a digit continuing a version),
// so that "o1" does not claim "o1x" but "gpt-4o" claims "gpt-4o-2024".
func boundary(name string, n int) bool {
	if n == len(name) {
		return true
	}
	switch c := name[n]; {
	case c == '-' || c == '_' || c == '.' || c == '@':
		return true
	case c >= '0' && c <= '9':
		return name[n-1] < '0' || name[n-1] > '9'
	}
	return false
}
