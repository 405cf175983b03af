package view

import (
	"crypto/sha256"
	hexenc "encoding/hex"
	"fmt"
	"strings"
)

// MaxLinkText is the longest prompt a link carries as text: a longer one
// that is not a built-in document is kept in the browser it was pasted in
// and the link names it (LocalDocID), as models are kept.
const MaxLinkText = 800

// localPrefix starts the name of a document kept in the browser.
const localPrefix = "local-"

// LocalDocID is the name a link gives a prompt kept in the browser:
// "local-" and the first 16 hex digits of its SHA-256.
func LocalDocID(text string) string {
	sum := sha256.Sum256([]byte(text))
	return localPrefix + hexenc.EncodeToString(sum[:8])
}

// IsLocalDocID reports whether id names a document kept in a browser.
func IsLocalDocID(id string) bool {
	if len(id) != len(localPrefix)+16 || !strings.HasPrefix(id, localPrefix) {
		return false
	}
	_, err := hexenc.DecodeString(id[len(localPrefix):])
	return err == nil
}

// A BuiltinDoc is a document written for the page: a text with one fact
// planted in it, the question that asks for the fact, and the answer a
// model that read it should give.
type BuiltinDoc struct {
	Key, Title string
	Text       string
	Question   string
	Answer     string
}

// Documents are the page's built-in documents, long enough to put a small
// cache under pressure: a short story that fits stories260K's context, and
// three of 2,000 to 8,000 tokens for the models that take them. Each is
// composed from a few dozen sentences, deterministically, with its fact
// planted in the middle.
var Documents = []BuiltinDoc{
	shortStory(),
	longStory(),
	meetingRecord(),
	factList(),
}

// FindDocument returns the built-in document whose text is text.
func FindDocument(text string) (BuiltinDoc, bool) {
	for _, d := range Documents {
		if len(d.Text) == len(text) && d.Text == text {
			return d, true
		}
	}
	return BuiltinDoc{}, false
}

// DocumentByKey returns the built-in document named key.
func DocumentByKey(key string) (BuiltinDoc, bool) {
	for _, d := range Documents {
		if d.Key == key {
			return d, true
		}
	}
	return BuiltinDoc{}, false
}

var (
	kids    = []string{"Lily", "Tom", "Mia", "Ben", "Sue", "Sam", "Anna", "Tim"}
	places  = []string{"park", "garden", "beach", "forest", "farm", "river", "school", "market"}
	things  = []string{"a red ball", "a little boat", "a shiny stone", "a big kite", "a blue cup", "a funny hat", "a soft bear", "a green frog"}
	doings  = []string{"played all day", "ran and laughed", "sang a song", "built a small house", "looked for birds", "ate some apples", "drew pictures in the sand", "counted the clouds"}
	moods   = []string{"happy", "tired", "hungry", "surprised", "proud", "sleepy", "excited", "calm"}
	members = []string{"Ana from finance", "Ben from sales", "Carla from design", "David from support", "Eva from research", "Farid from legal", "Grace from operations", "Hugo from marketing"}
	topics  = []string{"the printer budget", "the new office chairs", "the website update", "the summer schedule", "the training plan", "the parking rules", "the coffee machine", "the client survey"}
	rivers  = []string{"Alder", "Brook", "Cedar", "Dune", "Elm", "Fern", "Glen", "Heath", "Iris", "Juniper"}
)

// storyParagraph is paragraph i of a children's story.
func storyParagraph(i int) string {
	a, b := kids[i%len(kids)], kids[(i*3+1)%len(kids)]
	return fmt.Sprintf("One day %s went to the %s with %s. They found %s and %s. When the sun went down, %s felt %s and %s went home.\n",
		a, places[(i*5)%len(places)], b, things[(i*7+2)%len(things)], doings[(i*3)%len(doings)], a, moods[(i*5+3)%len(moods)], b)
}

// planted returns head and then n lines line(0)…line(n−1), with fact
// planted at line at: before it, or instead of it with replace.
func planted(head string, n, at int, fact string, replace bool, line func(i int) string) string {
	var b strings.Builder
	b.WriteString(head)
	for i := range n {
		if i == at {
			b.WriteString(fact)
			if replace {
				continue
			}
		}
		b.WriteString(line(i))
	}
	return b.String()
}

func shortStory() BuiltinDoc {
	return BuiltinDoc{Key: "short-story", Title: "A short story (fits stories260K)",
		Text:     planted("", 5, 2, "Mom told Lily that the cookies were hidden in the yellow box under the bed.\n", false, storyParagraph),
		Question: "Where were the cookies hidden?", Answer: "in the yellow box under the bed"}
}

func longStory() BuiltinDoc {
	return BuiltinDoc{Key: "long-story", Title: "A long story with a key hidden in it",
		Text:     planted("", 90, 45, "Grandpa whispered that the key to the blue shed was under the third flower pot by the gate.\n", false, storyParagraph),
		Question: "Where was the key to the blue shed?", Answer: "under the third flower pot by the gate"}
}

func meetingRecord() BuiltinDoc {
	item := func(i int) string {
		return fmt.Sprintf("Item %d. %s reported on %s: the cost is now %d euros, and a decision is due in week %d.\n",
			i+1, members[(i*3)%len(members)], topics[(i*5+1)%len(topics)], 120+(i*37)%900, 2+(i*7)%48)
	}
	return BuiltinDoc{Key: "meeting", Title: "A meeting record",
		Text:     planted("Minutes of the staff meeting.\n", 80, 40, "Item 41. The chair announced that the next board meeting will be held in room 714 on Thursday.\n", true, item),
		Question: "In which room will the next board meeting be held?", Answer: "714"}
}

func factList() BuiltinDoc {
	fact := func(i int) string {
		return fmt.Sprintf("Fact %d: The river %s %d is %d kilometres long and has %d bridges.\n",
			i+1, rivers[i%len(rivers)], i/len(rivers)+1, 40+(i*53)%700, 1+(i*11)%30)
	}
	return BuiltinDoc{Key: "facts", Title: "A list of facts with a pass key",
		Text:     planted("", 110, 55, "Fact 56: The pass key is 48213. Remember it.\n", true, fact),
		Question: "What is the pass key?", Answer: "48213"}
}
