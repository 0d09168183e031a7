package app

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/glance"
	"github.com/spirit-app/spirit/agents/llm/setup"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/screen"
	"github.com/spirit-app/spirit/screen/ocr"
)

// Glance settings and defaults.
const (
	kindGlance            = "glance"
	settingGlanceMaxHour  = "glance.max_per_hour" // default 4
	settingGlanceQuiet    = "glance.quiet_hours"  // "20-8": no glance nudges from 20:00 to 08:00
	defaultGlanceMaxHour  = 4
	glanceDismissCooldown = 15 * time.Minute // doubled for each recent dismissal
)

// glanceOn decides, after an app switch, whether the screen shows an email
// that needs the lawyer, and nudges only when it does. Every outcome is
// written to the world log; every error ends in silence.
func (c *Core) glanceOn(ctx context.Context, sw screen.Switch) {
	c.glanceMu.Lock()
	defer c.glanceMu.Unlock()
	now := c.now()
	if reason := c.glanceGate(ctx, now); reason != "" {
		c.event(ctx, "glance", sw.App, "silent: "+reason+" (gate)")
		return
	}
	ix := index.New(c.store)
	in := glance.Input{App: sw.App, Title: sw.Title, Excluded: sw.Excluded, Now: now}
	if as, err := ix.Accounts(ctx); err == nil {
		for _, a := range as {
			in.Me = append(in.Me, a.Addresses()...)
			if in.MeName == "" {
				in.MeName = a.Name
			}
		}
	}
	// Code first: it is free, and a thread already nudged about must not
	// cost a model call.
	d, err := glance.Decide(ctx, ix, in)
	if err == nil && d.MessageID != "" && c.glanceSeen(ctx, "glance:"+d.MessageID) {
		c.event(ctx, "glance", sw.App, "silent: already nudged about this thread (gate)")
		return
	}
	// A mail window whose title does not say which message is open (a list
	// view): look at the screen, read its text, and decide again.
	var shot *glance.Image
	if err == nil && d.Reason == glance.ReasonNotEmail && glance.ParseTitle(sw.App, sw.Title).Mail() {
		if s, ok := c.lookAt(ctx, sw); ok {
			shot = &glance.Image{MIME: s.MIME, Data: s.Data}
			if text := c.readScreen(ctx, s); text != "" {
				in.ScreenText = text
				d, err = glance.Decide(ctx, ix, in)
			}
		}
	}
	// A code stage over its budget is not run again under the models:
	// DecideWithModels starts with the same code, and the user has moved on.
	if m, ok := c.glanceModels(ctx); ok && err == nil && d.Reason != glance.ReasonOverBudget {
		d, err = glance.DecideWithModels(ctx, ix, in, m, shot)
	}
	if err != nil {
		c.event(ctx, "glance", sw.App, fmt.Sprintf("silent: error at %s: %v", d.Stage, err))
		return
	}
	if !d.Surface {
		reason := d.Reason
		if reason == glance.ReasonOverBudget {
			reason = "code stage over budget"
		}
		c.event(ctx, "glance", sw.App, "silent: "+reason+" ("+d.Stage+")")
		return
	}
	subject := "glance:" + d.MessageID
	if c.glanceSeen(ctx, subject) {
		c.event(ctx, "glance", sw.App, "silent: already nudged about this thread (gate)")
		return
	}
	if _, err := c.nudge(ctx, store.Nudge{Kind: kindGlance, Message: d.Message, ActionPrompt: d.ActionPrompt, Subject: subject}); err != nil {
		c.log.Error("glance nudge", "err", err)
	}
}

// glanceGate returns why no glance nudge may be shown now, or "".
func (c *Core) glanceGate(ctx context.Context, now time.Time) string {
	if q, ok, _ := c.store.Setting(ctx, settingGlanceQuiet); ok && inQuietHours(q, now) {
		return "quiet hours"
	}
	all, err := c.store.Nudges(ctx)
	if err != nil {
		return "cannot read nudges"
	}
	max := defaultGlanceMaxHour
	if v, ok, _ := c.store.Setting(ctx, settingGlanceMaxHour); ok {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			max = n
		}
	}
	var lastHour, dismissed int
	var lastDismissal time.Time
	for _, n := range all {
		if n.Kind != kindGlance {
			continue
		}
		if now.Sub(n.Created) < time.Hour {
			lastHour++
		}
		if n.State == store.NudgeDismissed && now.Sub(n.Updated) < 24*time.Hour {
			dismissed++
			if n.Updated.After(lastDismissal) {
				lastDismissal = n.Updated
			}
		}
	}
	if lastHour >= max {
		return fmt.Sprintf("%d glance nudges in the last hour", lastHour)
	}
	// Each recent dismissal doubles the quiet time after the last one.
	if dismissed > 0 {
		cool := glanceDismissCooldown << min(dismissed-1, 6)
		if now.Sub(lastDismissal) < cool {
			return fmt.Sprintf("cooling down after %d dismissals", dismissed)
		}
	}
	return ""
}

// glanceSeen: a thread is nudged about once, whatever the answer was.
func (c *Core) glanceSeen(ctx context.Context, subject string) bool {
	all, err := c.store.Nudges(ctx)
	if err != nil {
		return true // unsure: stay silent
	}
	for _, n := range all {
		if n.Subject == subject {
			return true
		}
	}
	return false
}

// inQuietHours reads "20-8" (hours, local) and says whether now is inside.
func inQuietHours(spec string, now time.Time) bool {
	from, to, ok := strings.Cut(strings.TrimSpace(spec), "-")
	if !ok {
		return false
	}
	a, err1 := strconv.Atoi(strings.TrimSpace(from))
	b, err2 := strconv.Atoi(strings.TrimSpace(to))
	if err1 != nil || err2 != nil {
		return false
	}
	h := now.Hour()
	if a <= b {
		return h >= a && h < b
	}
	return h >= a || h < b
}

// glanceModels returns the configured provider for the glance's model
// stages; ok is false when none is set (the supported default).
func (c *Core) glanceModels(ctx context.Context) (glance.Models, bool) {
	s, err := setup.Load(ctx, c.store)
	if err != nil || !s.Configured() {
		return glance.Models{}, false
	}
	sec, err := c.secrets()
	if err != nil {
		c.log.Warn("glance: no keychain, model stages off", "err", err)
		return glance.Models{}, false
	}
	p, err := setup.Provider(ctx, s, sec, c.llmCounters)
	if err != nil || p == nil {
		c.log.Warn("glance: provider unusable, model stages off", "err", err)
		return glance.Models{}, false
	}
	return glance.Models{Triage: p, Analyst: p, TriageModel: s.Roles.Triage, AnalystModel: s.Roles.Analyst, Logger: c.log}, true
}

// lookAt captures the active window's screen, in memory only.
func (c *Core) lookAt(ctx context.Context, sw screen.Switch) (screen.Shot, bool) {
	w := c.watcher()
	if w == nil {
		return screen.Shot{}, false
	}
	s, err := w.capture(ctx, sw)
	if err != nil {
		c.event(ctx, "glance", sw.App, "no screenshot: "+err.Error())
		return screen.Shot{}, false
	}
	return s, true
}

// readScreen returns the text on the capture, unless screen text is off.
func (c *Core) readScreen(ctx context.Context, s screen.Shot) string {
	if on, err := c.store.BoolSetting(ctx, settingScreenText, true); err != nil || !on {
		return ""
	}
	if c.ocr == nil {
		t, err := ocr.New(ocr.Config{})
		if err != nil {
			c.log.Warn("screen text is unavailable", "err", err)
			return ""
		}
		c.ocr = t
	}
	text, err := c.ocr.ReadText(ctx, s.Full)
	if err != nil {
		c.log.Warn("read screen text", "err", err)
		return ""
	}
	return text
}

// closeOCR releases Tesseract's model at shutdown.
func (c *Core) closeOCR() {
	c.glanceMu.Lock()
	defer c.glanceMu.Unlock()
	if c.ocr != nil {
		c.ocr.Close()
		c.ocr = nil
	}
}
