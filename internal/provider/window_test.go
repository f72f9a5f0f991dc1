package provider

import "testing"

func TestContextWindow(t *testing.T) {
	tests := []struct {
		model string
		want  int
	}{
		{"gpt-4o", 128000},
		{"gpt-4o-mini-2024-07-18", 128000},
		{"openai/gpt-4.1-mini", 1047576},
		{"gpt-5", 400000},
		{"gpt-5-mini", 400000},
		{"o3", 200000},
		{"o4-mini", 200000},
		{"o1x-unknown", DefaultContextWindow},
		{"anthropic/claude-sonnet-4-5", 200000},
		{"claude-3-5-haiku-latest", 200000},
		{"google/gemini-2.5-pro", 1048576},
		{"llama3", 8192},
		{"llama3.1:8b", 128000},
		{"meta-llama/llama-3.3-70b-instruct:free", 128000},
		{"qwen3:32b", 131072},
		{"qwen2.5-coder:7b", 32768},
		{"mistral-large-latest", 131072},
		{"deepseek/deepseek-chat", 128000},
		{"deepseek-r1:14b", 64000},
		{"moonshotai/kimi-k2", 131072},
		{"moonshotai/kimi-k2.5", 262144},
		{"GPT-4O", 128000},
		{"", DefaultContextWindow},
		{"totally-unknown-model", DefaultContextWindow},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			if got := ContextWindow(tt.model); got != tt.want {
				t.Errorf("ContextWindow(%q) = %d, want %d", tt.model, got, tt.want)
			}
		})
	}
}
