package model_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/internal/testmodel"
	"github.com/kvscope/kvscope/core/model"
)

func TestDetectChat(t *testing.T) {
	for _, tc := range []struct {
		name, template string
		want           model.ChatFormat
	}{
		{"none", "", model.ChatNone},
		{"ChatML", "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}", model.ChatML},
		{"Phi-4 is not ChatML", "<|im_start|>{{ role }}<|im_sep|>{{ content }}<|im_end|>", model.ChatNone},
		{"SmolVLM is not ChatML", "<|im_start|>User:<end_of_utterance>", model.ChatNone},
		{"Gemma", "{{ bos_token }}<start_of_turn>user\n{{ content }}<end_of_turn>", model.ChatGemma},
		{"Llama 3", "<|start_header_id|>{{ role }}<|end_header_id|>\n\n{{ content }}<|eot_id|>", model.ChatLlama3},
		{"a header alone is not Llama 3", "<|start_header_id|>", model.ChatNone},
		{"Mistral", "[INST] {{ content }} [/INST]", model.ChatNone},
	} {
		if got := model.DetectChat(tc.template); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// The real vocabularies' own templates are recognised as llama.cpp does:
// Qwen3's and Llama 3's by their turn markers, Gemma 3's; the files
// without a template have none.
func TestRealVocabChat(t *testing.T) {
	want := map[string]model.ChatFormat{"qwen3": model.ChatML, "llama3": model.ChatLlama3, "gemma3": model.ChatGemma}
	for _, name := range testmodel.Vocabs {
		tok := testmodel.Tokenizer(t, name)
		if tok.Chat != want[name] || tok.HasTemplate != (want[name] != model.ChatNone) {
			t.Errorf("%s: chat %s, template %v; want %s", name, tok.Chat, tok.HasTemplate, want[name])
		}
	}
}

// A question about a document: the document's tokens are the same as
// alone, the turn's markers are single control tokens, the question
// follows, and the assistant's header ends the prompt.
func TestDocumentPrompt(t *testing.T) {
	const doc, q = "The meeting moved to room 12 on Tuesday.", "Where is the meeting?"
	for _, name := range testmodel.Vocabs {
		t.Run(name, func(t *testing.T) {
			tok := testmodel.Tokenizer(t, name)
			alone := tok.Document(doc, "")
			if !slices.Equal(alone.IDs, tok.Prompt(doc)) || alone.Question != len(alone.IDs) {
				t.Fatalf("without a question: %v, question at %d; Prompt gives %v", alone.IDs, alone.Question, tok.Prompt(doc))
			}
			d := tok.Document(doc, q)
			if d.Format != tok.Chat {
				t.Errorf("format %s, the vocabulary's %s", d.Format, tok.Chat)
			}
			body := tok.Encode(doc, false, false)
			if !slices.Equal(d.IDs[d.Question-len(body):d.Question], body) {
				t.Errorf("the document's tokens before the question: %v, alone %v", d.IDs[:d.Question], body)
			}
			if tok.AddBOS() && d.IDs[0] != tok.BOS {
				t.Errorf("no BOS first: %v", d.IDs[:3])
			}
			rest := tok.Decode(d.IDs[d.Question:])
			if !strings.Contains(rest, q) {
				t.Errorf("the question's tokens read %q", rest)
			}
			open, close := tok.Chat.Turn()
			if tok.Chat != model.ChatNone {
				first, _ := tok.TokenID(strings.SplitN(open, "user", 2)[0])
				if !slices.Contains(d.IDs[:d.Question], first) {
					t.Errorf("the user turn's marker %q is not one token in %v", open, d.IDs[:4])
				}
				tail := tok.EncodeSpecial(close, false, false)
				if !slices.Equal(d.IDs[len(d.IDs)-len(tail):], tail) {
					t.Errorf("the prompt does not end with the assistant's header %q", close)
				}
			} else if !strings.HasSuffix(rest, "Answer:") {
				t.Errorf("without a chat format the prompt ends %q", rest)
			}
		})
	}
}

func ExampleChatFormat_Turn() {
	open, close := model.ChatML.Turn()
	fmt.Printf("%q %q\n", open, close)
	// Output:
	// "<|im_start|>user\n" "<|im_end|>\n<|im_start|>assistant\n"
}
