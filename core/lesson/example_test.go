package lesson_test

import (
	"fmt"

	"github.com/kvscope/kvscope/core/lesson"
)

// The page measures a lesson's state before and after the learner acts,
// and asks for the text: the claim is written from those numbers.
func ExampleClaim() {
	before := lesson.Numbers{Mass: 0.364, OutErr: 0.682}
	after := lesson.Numbers{Mass: 0.536, OutErr: 0.353}
	text, err := lesson.Claim(3, before, after)
	if err != nil {
		panic(err)
	}
	fmt.Println(text)
	// Output: With 4 sink tokens beside the recent window, attention mass kept over the run rose from 36.4 % to 53.6 % and output error over the run fell from 68.2 % to 35.3 %.
}

// A lesson is data the page can act on: its link, the control it asks
// about, and when that control reads what it asked.
func ExampleLesson_Done() {
	l, _ := lesson.Get(3)
	fmt.Println(l.Title)
	fmt.Println(l.Action.Ask)
	fmt.Println(l.Done("sink", "2"), l.Done("sink", "4"))
	// Output:
	// Sinks rescue it (StreamingLLM)
	// Set Sink tokens to 4.
	// false true
}
