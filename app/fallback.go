package app

import (
	"context"
	"errors"
	"time"

	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/voice/intent"
)

// notUnderstood answers words addressed to Spirit that nothing could read:
// staying silent would look like Spirit did not hear.
const notUnderstood = `Sorry, I didn't catch that. Try "remind me to …" or "pause listening".`

// understand reads words heard or typed at now: the grammar first, then,
// only for words led by the wake phrase (or Spirit's name) that the grammar
// cannot read, the configured model as a last resort. Whatever the model
// answers is only an intent, handled like a parsed one; it never acts by
// itself. addressed reports whether the words were led by the wake phrase,
// so a None can be answered rather than ignored.
func (c *Core) understand(ctx context.Context, text string, now time.Time) (in intent.Intent, addressed bool) {
	opts := c.parseOptions(ctx)
	in = intent.ParseWith(text, now, opts)
	if in.Kind != intent.None || !intent.WakeLed(text, opts) {
		return in, false
	}
	asker, ok := c.keys.commandAsker(ctx)
	if !ok {
		return in, true
	}
	read, err := intent.ReadWithModel(ctx, asker, text, now)
	switch {
	case errors.Is(err, intent.ErrNotUnderstood):
		c.log.Debug("command model did not understand", "err", err)
		return in, true
	case err != nil:
		c.log.Warn("command model failed", "err", err)
		return in, true
	}
	c.log.Info("command read by the model", "intent", string(read.Kind))
	return read, true
}

// notUnderstoodResult is the answer to words that asked nothing Spirit
// could read: none, with a reply only when they were addressed to Spirit.
func notUnderstoodResult(addressed bool) api.SayResult {
	if addressed {
		return api.SayResult{Intent: string(intent.None), Reply: notUnderstood}
	}
	return api.SayResult{Intent: string(intent.None), Reply: "Nothing to do."}
}
