package model

import "strings"

// ChatFormat is a chat template kvscope recognises in a GGUF file's
// tokenizer.chat_template, by llama.cpp's built-in detection (substring
// tests, not a Jinja engine; src/llama-chat.cpp): ChatML (Qwen, SmolLM2),
// Llama 3 and Gemma. The zero value, ChatNone, is a file without a
// template or with one kvscope does not know.
type ChatFormat uint8

// The chat formats.
const (
	ChatNone ChatFormat = iota
	ChatML
	ChatLlama3
	ChatGemma
)

// String returns the format's name as the page and the command line show it.
func (f ChatFormat) String() string {
	switch f {
	case ChatML:
		return "ChatML"
	case ChatLlama3:
		return "Llama 3"
	case ChatGemma:
		return "Gemma"
	}
	return "none"
}

// DetectChat returns the format of a chat template, tested in llama.cpp's
// order: "<|im_start|>" is ChatML unless the template is Phi-4's or
// SmolVLM's; "<start_of_turn>" is Gemma; "<|start_header_id|>" with
// "<|end_header_id|>" is Llama 3. Anything else, and "", is ChatNone.
func DetectChat(template string) ChatFormat {
	has := func(s string) bool { return strings.Contains(template, s) }
	switch {
	case has("<|im_start|>"):
		if has("<|im_sep|>") || has("<end_of_utterance>") {
			return ChatNone
		}
		return ChatML
	case has("[INST]"):
		return ChatNone // the Mistral and Llama 2 family: not recognised here
	case has("<start_of_turn>"):
		return ChatGemma
	case has("<|start_header_id|>") && has("<|end_header_id|>"):
		return ChatLlama3
	}
	return ChatNone
}

// Turn returns the text around a user message's content, as llama.cpp's
// built-in formatter writes it with the generation prompt: open before
// the content (the user turn's header) and close after it (the end of the
// turn and the assistant's header). Both are "" for ChatNone.
func (f ChatFormat) Turn() (open, close string) {
	switch f {
	case ChatML:
		return "<|im_start|>user\n", "<|im_end|>\n<|im_start|>assistant\n"
	case ChatLlama3:
		return "<|start_header_id|>user<|end_header_id|>\n\n", "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
	case ChatGemma:
		return "<start_of_turn>user\n", "<end_of_turn>\n<start_of_turn>model\n"
	}
	return "", ""
}

// Document is a run's prompt made of a document and a question about it.
type Document struct {
	IDs      []int      // the prompt's token ids, BOS first when the vocabulary adds one
	Question int        // position where the question begins: the document's tokens are IDs[:Question]; len(IDs) without a question
	Format   ChatFormat // the chat format the question was asked in (ChatNone: as plain text)
}

// Document returns the prompt that asks question about doc. Without a
// question it is Prompt(doc). With one, under the vocabulary's chat
// format the document and the question (after a blank line) are one user
// turn followed by the assistant's header, as kvpress wraps a context and
// its question; without a format, the question follows the document as
// "Question: …" and "Answer:". The document and the question are
// tokenized apart, so the document's tokens are the same whatever is asked
// and Question marks where they end (the special tokens of the turn are
// read as such, the document's and the question's text never).
func (t *Tokenizer) Document(doc, question string) Document {
	if question == "" {
		ids := t.Prompt(doc)
		return Document{IDs: ids, Question: len(ids)}
	}
	open, close := t.Chat.Turn()
	var ids []int
	if t.AddBOS() {
		ids = append(ids, t.BOS)
	}
	ids = append(ids, t.EncodeSpecial(open, false, false)...)
	ids = append(ids, t.Encode(doc, false, false)...)
	d := Document{Question: len(ids), Format: t.Chat}
	if t.Chat == ChatNone {
		ids = append(ids, t.Encode("\n\nQuestion: "+question+"\nAnswer:", false, false)...)
	} else {
		ids = append(ids, t.Encode("\n\n"+question, false, false)...)
		ids = append(ids, t.EncodeSpecial(close, false, false)...)
	}
	d.IDs = ids
	return d
}
