package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/kvscope/kvscope/core/model"
)

// The recall tasks a small model can be scored on by teacher-forced
// log-probability (see BuildTask).
const (
	TaskCopy  = "copy"  // induction copy: random tokens, then the same again
	TaskName  = "name"  // name recall: a rare name introduced, then needed again
	TaskMagic = "magic" // passkey in a story: "The magic word is …", later asked
)

// TaskKinds lists the tasks in the order the page and the command offer them.
var TaskKinds = []string{TaskCopy, TaskName, TaskMagic}

// TaskSpec chooses one instance of a task. The same spec always builds the
// same tokens.
type TaskSpec struct {
	Kind   string  // TaskCopy, TaskName or TaskMagic
	Seed   uint64  // chooses the random tokens, the name or word and the filler sentences
	Length int     // tokens the instance aims for, BOS to the last scored token (filler sentences are added while they fit)
	Depth  float64 // 0..1: the share of the filler placed before the needle (0: right after BOS; 1: just before the question)
	Span   int     // copy: tokens per copy (R); 0 means DefaultSpan
	// Control puts another random sequence, name or word in the needle
	// while the answer stays the same (and everything else too): the score
	// of a model that has no access to the needle (the copy task's unigram
	// level, the chance level of the others).
	Control bool
}

// DefaultSpan is the copy task's default number of random tokens per copy.
const DefaultSpan = 32

// Task is a built instance: a token sequence with the positions scored by
// teacher forcing. The sequence is the concatenation of each segment's
// encoding (BOS, filler sentences, needle, question, answer), each segment
// encoded on its own with SentencePiece's leading space, so the needle and
// the scored tokens sit at known positions.
type Task struct {
	Spec    TaskSpec
	Tokens  []int  // BOS first
	Context int    // tokens before the question: the prompt a cache compresses at once (as kvpress does)
	Needle  [2]int // [start, end) of the needle in Tokens: the first copy, the name's introduction, the magic sentence
	Scored  []int  // positions i in Tokens whose token is scored, as predicted from Tokens[:i]
	Answer  string // the name or the magic word ("" for copy)
}

// filler is the haystack: plain sentences in the style of the stories the
// small models are trained on, with no names and no magic words.
var filler = []string{
	"The sun was warm and the sky was blue.",
	"A little bird sang a happy song in the tree.",
	"The dog ran to the park and played with a ball.",
	"They ate some cake and drank some milk.",
	"The cat slept on the soft bed all day.",
	"It started to rain, so they went inside.",
	"The flowers in the garden were red and yellow.",
	"Mom made a big lunch for everyone.",
	"The boy found a shiny rock by the river.",
	"They built a tall tower with their blocks.",
	"The wind blew the leaves across the yard.",
	"A small frog jumped into the pond.",
	"The girl drew a picture of a house.",
	"Dad read a story before bed.",
	"The children laughed and ran around the tree.",
	"The car was red and very fast.",
	"They went to the store to buy some apples.",
	"The bear was big, but it was kind.",
	"The moon was bright in the dark sky.",
	"The fish swam in the cold water.",
	"They shared their toys and had fun.",
	"The baby smiled at the funny clown.",
	"The old tree had many green leaves.",
	"The kids played with the sand at the beach.",
}

// Name syllables: a capitalised first one, then two more; the result is a
// rare name that the tokenizer splits into several pieces.
var (
	nameHeads = []string{"Zor", "Kip", "Trev", "Quil", "Vex", "Jub", "Mog", "Xan", "Plom", "Drib"}
	nameMids  = []string{"a", "o", "i", "u", "e"}
	nameTails = []string{"bax", "mena", "lix", "dor", "zun", "vik", "rop", "quen"}
	// magicWords are simple words the stories use, each a few pieces; none
	// occurs in the filler or the question.
	magicWords = []string{"kite", "boat", "bell", "drum", "lamp", "sock", "plum", "coin", "shoe", "cup", "pig", "owl"}
)

// Templates of the name and magic tasks.
const (
	nameIntro     = "Once upon a time, there was a little girl named %s."
	nameCue       = "One day,"
	magicSentence = "The magic word is %s."
	magicQuestion = "What is the magic word? The magic word is"
)

// wordTask builds the needle of a task whose needle is one sentence naming
// a word (the name and magic-word tasks): it draws the word and then the
// control's, again while the two are alike, makes the first t's answer,
// and returns the tokens of the needle (the control's sentence in a
// control), of the other sentence, of the question cue and of the answer.
// sentence has one %s for the word.
func (t *Task) wordTask(enc func(string) []int, draw func() string, sentence, cue string) (needle, alt, question, answer []int) {
	word, other := draw(), draw()
	for other == word {
		other = draw()
	}
	t.Answer = word
	if t.Spec.Control {
		word, other = other, word
	}
	return enc(fmt.Sprintf(sentence, word)), enc(fmt.Sprintf(sentence, other)), enc(cue), enc(t.Answer)
}

// BuildTask builds spec's instance for a model with tokenizer tk and a
// context of contextLength tokens:
//
//   - copy: BOS, filler before, Span random normal vocabulary tokens (the
//     first copy, the needle), filler after, and the same tokens again; the
//     second copy's tokens but its first (which nothing predicts) are scored.
//   - name: BOS, filler before, "Once upon a time, there was a little girl
//     named <Name>." (the needle; the name is three seeded syllables, several
//     tokens), filler after, "One day,", then the name; the name's tokens are
//     scored.
//   - magic: BOS, filler before, "The magic word is <word>." (the needle),
//     filler after, "What is the magic word? The magic word is", then the
//     word; the word's tokens are scored.
//
// Filler sentences are drawn with replacement from a fixed list by a PCG
// seeded with spec.Seed and added while the whole fits in spec.Length
// tokens; spec.Depth splits them around the needle. With spec.Control the
// needle holds the other draw and the filler stays the same. It returns an error for
// an unknown kind, a depth outside [0, 1], a length beyond the model's
// context, or a length too short for the needle, question and answer.
func BuildTask(tk *model.Tokenizer, contextLength int, spec TaskSpec) (*Task, error) {
	if spec.Span == 0 {
		spec.Span = DefaultSpan
	}
	if math.IsNaN(spec.Depth) || spec.Depth < 0 || spec.Depth > 1 {
		return nil, fmt.Errorf("sim: task depth %v outside [0, 1]", spec.Depth)
	}
	if spec.Length < 2 || spec.Length > contextLength {
		return nil, fmt.Errorf("sim: task length %d outside [2, %d] (the model's context)", spec.Length, contextLength)
	}
	if spec.Span < 2 || spec.Span > contextLength {
		return nil, fmt.Errorf("sim: copy span %d outside [2, %d]", spec.Span, contextLength)
	}
	rng := rand.New(rand.NewPCG(spec.Seed, 0x6b7673636f7065)) // "kvscope"
	enc := func(s string) []int { return tk.Encode(s, false, false) }
	// needle is what the instance holds, alt the other choice (the control's
	// needle, or the real one in a control), so both instances fit the same
	// filler.
	var needle, alt, question, answer []int
	t := &Task{Spec: spec}
	switch spec.Kind {
	case TaskCopy:
		var normal []int
		for id := range tk.VocabSize() {
			if tk.Type(id) == model.TokenNormal {
				normal = append(normal, id)
			}
		}
		if len(normal) < 2 {
			return nil, fmt.Errorf("sim: copy task: the vocabulary has fewer than 2 normal pieces")
		}
		draw := func() []int {
			x := make([]int, spec.Span)
			for i := range x {
				x[i] = normal[rng.IntN(len(normal))]
			}
			return x
		}
		answer = draw()
		needle, alt = answer, draw()
		if spec.Control {
			needle, alt = alt, needle
		}
	case TaskName:
		needle, alt, question, answer = t.wordTask(enc, func() string {
			return nameHeads[rng.IntN(len(nameHeads))] + nameMids[rng.IntN(len(nameMids))] + nameTails[rng.IntN(len(nameTails))]
		}, nameIntro, nameCue)
	case TaskMagic:
		needle, alt, question, answer = t.wordTask(enc, func() string {
			return magicWords[rng.IntN(len(magicWords))]
		}, magicSentence, magicQuestion)
	default:
		return nil, fmt.Errorf("sim: unknown task %q (want %s)", spec.Kind, strings.Join(TaskKinds, ", "))
	}
	fixed := 1 + max(len(needle), len(alt)) + len(question) + len(answer)
	if fixed > spec.Length {
		return nil, fmt.Errorf("sim: %s task needs at least %d tokens, length is %d", spec.Kind, fixed, spec.Length)
	}
	// Filler: sentences while they fit, then split at the depth.
	var sentences [][]int
	room := spec.Length - fixed
	for {
		s := enc(filler[rng.IntN(len(filler))])
		if len(s) > room {
			break
		}
		sentences = append(sentences, s)
		room -= len(s)
	}
	total := spec.Length - fixed - room // filler tokens
	split, before := 0, 0
	for split < len(sentences) && float64(before)+float64(len(sentences[split]))/2 <= spec.Depth*float64(total) {
		before += len(sentences[split])
		split++
	}
	toks := make([]int, 0, spec.Length)
	toks = append(toks, tk.BOS)
	for _, s := range sentences[:split] {
		toks = append(toks, s...)
	}
	t.Needle[0] = len(toks)
	toks = append(toks, needle...)
	t.Needle[1] = len(toks)
	for _, s := range sentences[split:] {
		toks = append(toks, s...)
	}
	toks = append(toks, question...)
	t.Context = len(toks)
	if spec.Kind == TaskCopy {
		t.Context++ // the first token of the second copy is context, not scored
	}
	first := len(toks)
	toks = append(toks, answer...)
	for i := max(first, t.Context); i < len(toks); i++ {
		t.Scored = append(t.Scored, i)
	}
	t.Tokens = toks
	return t, nil
}
