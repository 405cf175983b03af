package model_test

import (
	"fmt"
	"math"

	"github.com/kvscope/kvscope/core/model"
)

// A SentencePiece vocabulary merges characters into the highest-scoring pieces;
// characters it lacks fall back to byte tokens.
func ExampleTokenizer_Encode() {
	pieces := []string{"<unk>", "<s>", "</s>", "<0x21>", "▁", "h", "i", "▁h", "hi", "▁hi"}
	scores := []float32{0, 0, 0, 0, -1, -2, -3, -4, -5, -6}
	tok, err := model.NewTokenizer(pieces, scores, nil, 1, 2, 0)
	if err != nil {
		panic(err)
	}
	ids := tok.Encode("hi hi!", true, false)
	for i, id := range ids {
		if i > 0 {
			fmt.Print(" ")
		}
		fmt.Printf("%d:%s", id, tok.Piece(id))
	}
	fmt.Printf("\n%q\n", tok.Decode(ids))
	// Output:
	// 1:<s> 9:▁hi 9:▁hi 3:<0x21>
	// "hi hi!"
}

// Under grouped-query attention several query heads share one key/value head.
func ExampleKVHead() {
	for h := 0; h < 8; h++ {
		fmt.Print(model.KVHead(h, 8, 4), " ")
	}
	fmt.Println()
	// Output: 0 0 1 1 2 2 3 3
}

// RoPE turns each pair of a head by an angle that grows with the position and
// shrinks with the pair index.
func ExampleRoPE() {
	x := []float32{1, 0, 1, 0}
	model.RoPE(x, 2, 4, 10000) // pair 0 turns by 2 rad, pair 1 by 0.02 rad
	fmt.Printf("%.3f %.3f | %.3f %.3f\n", x[0], x[1], x[2], x[3])
	// Output: -0.416 0.909 | 1.000 0.020
}

// KLDivergence measures how far a compressed cache's next-token distribution is
// from the reference's.
func ExampleKLDivergence() {
	ref := []float32{0, 0}                     // 50% / 50%
	test := []float32{0, float32(math.Log(3))} // 25% / 75%
	fmt.Printf("%.4f nats\n", model.KLDivergence(ref, test))
	fmt.Printf("%.4f nats\n", model.KLDivergence(ref, ref))
	// Output:
	// 0.1438 nats
	// 0.0000 nats
}

// A byte-level BPE vocabulary writes text in the GPT-2 byte alphabet (Ġ
// stands for the space) and merges the pair of lowest rank first.
func ExampleNewBPETokenizer() {
	tokens := []string{"h", "i", "Ġ", "hi", "Ġhi", "!"}
	merges := []string{"h i", "Ġ hi"}
	tok, err := model.NewBPETokenizer(tokens, nil, merges, "gpt-2", -1, -1)
	if err != nil {
		panic(err)
	}
	ids := tok.Encode("hi hi!", false, false)
	for i, id := range ids {
		if i > 0 {
			fmt.Print(" ")
		}
		fmt.Printf("%d:%s", id, tok.Piece(id))
	}
	fmt.Printf("\n%q\n", tok.Decode(ids))
	// Output:
	// 3:hi 4:Ġhi 5:!
	// "hi hi!"
}
