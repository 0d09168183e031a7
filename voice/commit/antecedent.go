package commit

import (
	"strings"

	"github.com/spirit-app/spirit/voice/intent"
)

// A promise often points back: "the motion to compel is in final form" /
// "I'm going to file it Thursday". A reminder to "file it" would tell the
// lawyer nothing a day later, so the pronoun is read as the document named
// just before, when one was: "file the motion to compel". Only documents
// and the like are taken (docNouns), so a person or a place never stands
// in for "it".

// docNouns are the things lawyers promise to send, file or fix.
var docNouns = set("agreement", "amendment", "lease", "redline", "draft", "markup", "mark-up",
	"blackline", "comment", "motion", "brief", "letter", "memo", "memorandum", "schedule",
	"exhibit", "report", "certificate", "estoppel", "snda", "nda", "contract", "complaint",
	"answer", "reply", "notice", "order", "stipulation", "subpoena", "checklist", "statement",
	"sheet", "minutes", "consent", "page", "document", "doc", "docs", "copy", "invoice", "filing",
	"application", "petition", "deed", "survey", "log", "outline", "binder", "deliverable",
	"instruction", "number", "figure", "proposal", "opinion", "summary", "disclosure", "rider",
	"addendum", "ledger", "roll", "comp", "policy", "form", "package", "file", "record",
	"transcript", "declaration", "affidavit", "discovery", "response", "interrogatory",
	"production", "index", "settlement", "release", "waiver", "guaranty", "guarantee", "note",
	"mortgage", "resolution", "bylaws", "charter", "proration", "appeal", "opposition",
	"pleading", "objection", "email", "e-mail", "link", "version", "list", "chart", "tracker",
	"agenda", "quote", "estimate", "budget", "bill", "payment", "commitment", "loi", "psa",
	"model", "analysis", "memo", "questionnaire", "certification", "authorization",
	"paperwork", "term", "tape", "deck", "slides", "spreadsheet", "calculation", "abstract",
	"notes", "letters", "plan", "invite", "invitation", "demand", "offer", "counteroffer",
	"counter", "proof", "exhibits", "return", "k-1", "10-k", "8-k", "ucc", "redlines")

// docNoun reports whether w (any case, maybe plural) names a document.
func docNoun(w string) bool {
	if docNouns[w] {
		return true
	}
	if s, ok := strings.CutSuffix(w, "ies"); ok && docNouns[s+"y"] {
		return true
	}
	if s, ok := strings.CutSuffix(w, "es"); ok && docNouns[s] {
		return true
	}
	s, ok := strings.CutSuffix(w, "s")
	return ok && docNouns[s]
}

// npStops end a noun phrase: verbs that follow a subject, linking words,
// and the start of another phrase.
var npStops = set("is", "are", "was", "were", "be", "been", "has", "have", "had", "will",
	"would", "can", "could", "should", "did", "does", "do", "needs", "need", "still", "yet",
	"already", "just", "and", "but", "or", "so", "because", "before", "after", "since", "if",
	"when", "while", "until", "with", "at", "by", "in", "from", "that", "which", "who",
	"came", "went", "got", "changed", "looks", "says", "said", "i", "we", "you", "she", "he",
	"they", "it", "there", "this", "these", "those", "today", "tomorrow", "tonight", "again",
	"now", "then", "right", "over", "back", "out", "up", "yesterday", "")

// pointers are the pronouns a task's object may be; plural ones may
// point at two documents at once.
var (
	pointers = set("it", "them", "that", "those", "this", "these")
	plural   = set("them", "those", "these")
)

// resolve replaces the pronoun that is a task's object ("file it", "send
// them over") with the document named in before, the words said before the
// promise; the task is returned unchanged when there is none.
func resolve(task []tok, before func() []tok) []tok {
	if len(task) < 2 || !pointers[task[1].Norm] {
		return task
	}
	ws := before()
	np, from := lastDocument(ws)
	if len(np) == 0 {
		return task
	}
	// "the rent rolls and the estoppels" … "I'll send those over": a
	// plural pointer takes both documents of a pair.
	if plural[task[1].Norm] && from >= 2 && at(ws, from-1, "and") {
		if first, start := lastDocument(ws[:from-1]); len(first) > 0 && start+len(first) == from-1 {
			np = append(append(append([]tok{}, first...), tok{Raw: "and", Norm: "and"}), np...)
		}
	}
	out := append([]tok{task[0]}, np...)
	return append(out, task[2:]...)
}

// lastDocument is the last noun phrase of ws that starts with a
// determiner and names a document ("the revised disclosure schedules",
// "the motion to compel", "the seller's wire instructions"), or nil, and
// where in ws it starts.
func lastDocument(ws []tok) ([]tok, int) {
	for d := len(ws) - 2; d >= 0; d-- {
		if !determiners[ws[d].Norm] || ws[d].Norm == "that" {
			continue
		}
		end := d + 1
		for end < len(ws) && end-d <= 7 && !npStops[ws[end].Norm] && !determiners[ws[end].Norm] {
			end++
			if clauseMark(ws[end-1].Raw) {
				break
			}
		}
		head := -1
		for k := d + 1; k < end; k++ {
			if docNoun(ws[k].Norm) {
				head = k
			}
		}
		if head < 0 {
			continue
		}
		last := head
		// "the motion to compel", "the notice of appeal".
		if at(ws, head+1, "to|of") && end-head-1 <= 3 && !clauseMark(ws[head].Raw) {
			last = end - 1
		}
		np := make([]tok, 0, last-d+1)
		for _, w := range ws[d : last+1] {
			np = append(np, tok{Raw: strings.TrimRight(w.Raw, ",.;:?!"), Norm: w.Norm})
		}
		return np, d
	}
	return nil, 0
}

func clauseMark(raw string) bool {
	return strings.HasSuffix(raw, ",") || strings.HasSuffix(raw, ".") || strings.HasSuffix(raw, "?") ||
		strings.HasSuffix(raw, "!") || strings.HasSuffix(raw, ";") || strings.HasSuffix(raw, ":")
}

// scope is what a promise may point back to: the last two utterances
// before its own, then its own words before it, with a break between
// utterances so no phrase runs across them. Tokenised only when asked.
func scope(earlier []string, own []tok) func() []tok {
	return func() []tok {
		var ws []tok
		if len(earlier) > 2 {
			earlier = earlier[len(earlier)-2:]
		}
		for _, e := range earlier {
			if len(e) > maxUtterance {
				e = e[:maxUtterance]
			}
			ws = append(ws, intent.Words(e)...)
			ws = append(ws, tok{Raw: "."})
		}
		return append(ws, own...)
	}
}
