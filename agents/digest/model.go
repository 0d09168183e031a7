package digest

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// systemPrompt asks for the two outputs as JSON. The digest feeds Spirit's
// own reasoning (the heartbeat), so it must describe, never advise.
const systemPrompt = `You watch a lawyer's desk for an assistant called Spirit: which applications are in front, what text was read off the screen, and speech heard nearby.
Reply with ONLY a JSON object, no markdown:
{"hud": "<at most 15 words: what the lawyer is doing now, naming the application>", "digest": "<3 to 5 factual sentences: what the lawyer is doing, what is on screen, what was said>"}
Rules: the digest describes; it never suggests actions or gives advice. Use names, subjects and file names exactly as seen. If nothing is happening, hud is "Idle" and the digest says what was last seen.`

// maxReplyTokens bounds the model's answer: one short line and five
// sentences.
const maxReplyTokens = 400

// Prompt is the user message for c.
func Prompt(c Context) string {
	var b strings.Builder
	cur := "(none yet)"
	if c.Current != nil {
		switch {
		case c.Current.Private:
			cur = "a private window (not looked at)"
		case c.Current.Title != "":
			cur = fmt.Sprintf("%s — %q (since %s)", c.Current.App, c.Current.Title, c.Current.Since.Format(time.TimeOnly))
		default:
			cur = c.Current.App
		}
	}
	fmt.Fprintf(&b, "Now: %s\nIn front: %s\n", c.Now.Format("Mon 15:04:05"), cur)
	if !c.CallSince.IsZero() {
		fmt.Fprintf(&b, "On a call for %d min\n", int(c.Now.Sub(c.CallSince)/time.Minute))
	}
	b.WriteString("App history (last " + c.Window.String() + ", oldest first):\n")
	if len(c.Timeline) == 0 {
		b.WriteString("  (no switches)\n")
	}
	for _, s := range c.Timeline {
		title := s.Title
		if s.Private {
			title = "(private)"
		}
		fmt.Fprintf(&b, "  %s %s %q\n", s.At.Format(time.TimeOnly), s.App, title)
	}
	b.WriteString("Screen text of the window in front:\n")
	switch {
	case c.Screen == nil:
		b.WriteString("  (none read)\n")
	case c.Screen.Text == "":
		fmt.Fprintf(&b, "  (%d characters read; text not kept)\n", c.Screen.Chars)
	default:
		fmt.Fprintf(&b, "  %s\n", c.Screen.Text)
	}
	b.WriteString("Speech heard (oldest first):\n")
	if len(c.Utterances) == 0 {
		b.WriteString("  (silence)\n")
	}
	for _, u := range c.Utterances {
		fmt.Fprintf(&b, "  %s %s\n", u.At.Format(time.TimeOnly), u.Text)
	}
	return b.String()
}

// Reply is the model's answer, read.
type Reply struct {
	HUD    string `json:"hud"`
	Digest string `json:"digest"`
}

// ParseReply reads the model's {hud, digest} out of raw, tolerating code
// fences and words around the object. ok is false when no object with a
// HUD line is found: the caller keeps code's HUD then. A HUD longer than
// MaxHUDWords is cut; an empty digest is left empty.
func ParseReply(raw string) (Reply, bool) {
	s := strings.TrimSpace(raw)
	// The first '{' to its matching '}' , tried from each '{' in turn:
	// a fence or a sentence before the object does not matter.
	for start := strings.IndexByte(s, '{'); start >= 0; {
		dec := json.NewDecoder(strings.NewReader(s[start:]))
		var r struct {
			HUD    any `json:"hud"`
			Digest any `json:"digest"`
		}
		if err := dec.Decode(&r); err == nil {
			hud := flatten(r.HUD)
			if hud != "" {
				return Reply{HUD: limitWords(clip(hud, 200), MaxHUDWords), Digest: clip(flatten(r.Digest), 2000)}, true
			}
		}
		next := strings.IndexByte(s[start+1:], '{')
		if next < 0 {
			break
		}
		start += 1 + next
	}
	return Reply{}, false
}

// flatten turns a JSON value the model gave into one line of text: a
// string as it is, a list of sentences joined; anything else is "".
func flatten(v any) string {
	switch t := v.(type) {
	case string:
		return strings.Join(strings.Fields(t), " ")
	case []any:
		var parts []string
		for _, x := range t {
			if s := flatten(x); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, " ")
	}
	return ""
}
