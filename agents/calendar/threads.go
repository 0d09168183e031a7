package calendar

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/glance"
	"github.com/spirit-app/spirit/agents/mail/index"
)

// maxPersonThreads bounds the threads read per person: the most recent
// ones, which within Lookback is all of them for anyone a lawyer meets.
const maxPersonThreads = 50

// MailThreads is the OpenThreadsFunc of the mail index at now: a thread is
// open when one of the addresses wrote in it in the Lookback before now
// and the glance's thread decision on its newest message (as of now) says
// it needs a reply: not answered, not automated, to the lawyer (in To, or
// called on by name in Cc), and asking something of them.
func MailThreads(ix *index.Index, me Me, now time.Time) OpenThreadsFunc {
	return func(ctx context.Context, addrs []string) ([]OpenThread, error) {
		seen := map[int64]bool{}
		var out []OpenThread
		for _, addr := range addrs {
			// Exactly this address's threads of the Lookback: a search by
			// sender would also rank others whose address begins alike.
			ids, err := ix.ThreadsFrom(ctx, addr, now.Add(-Lookback), now, maxPersonThreads)
			if err != nil {
				return nil, fmt.Errorf("mail threads of %s: %w", addr, err)
			}
			for _, id := range ids {
				if seen[id] {
					continue
				}
				// The verdict is about the thread and all of addrs: one
				// reading answers for every address in it.
				seen[id] = true
				t, err := ix.ReadEmailThread(ctx, id)
				if err != nil {
					return nil, fmt.Errorf("mail threads of %s: %w", addr, err)
				}
				ot, ok, err := openThread(ctx, t, addrs, me, now)
				if err != nil {
					return nil, err
				}
				if ok {
					out = append(out, ot)
				}
			}
		}
		return out, nil
	}
}

// openThread applies the calendar's rule to one thread.
func openThread(ctx context.Context, t index.Thread, addrs []string, me Me, now time.Time) (OpenThread, bool, error) {
	var last *index.ThreadMessage
	recent := false
	for i := range t.Messages {
		m := &t.Messages[i]
		if m.Draft || m.Date.After(now) {
			continue // not yet seen at now
		}
		if last == nil || !m.Date.Before(last.Date) {
			last = m
		}
		if !m.Date.Before(now.Add(-Lookback)) && containsFold(addrs, m.From.Email) {
			recent = true
		}
	}
	if last == nil || !recent || me.Is(last.From.Email) {
		return OpenThread{}, false, nil
	}
	d, err := judgeThread(ctx, t, me, now)
	if err != nil {
		return OpenThread{}, false, err
	}
	if !d.Surface || d.Reason != glance.ReasonNeedsReply {
		return OpenThread{}, false, nil
	}
	subject := t.Subject
	if d.Subject != "" {
		subject = d.Subject
	}
	return OpenThread{
		ThreadID:  t.ID,
		MessageID: d.MessageID,
		Subject:   subject,
		From:      Person{Email: strings.ToLower(last.From.Email), Name: last.From.Name},
		Date:      last.Date,
		Prompt:    d.ActionPrompt,
	}, true, nil
}

// judgeThread asks the glance for its verdict on thread t: the same rules
// that decide whether an open email needs the lawyer.
func judgeThread(ctx context.Context, t index.Thread, me Me, now time.Time) (glance.Decision, error) {
	d, err := glance.JudgeThread(ctx, t, glance.Input{Now: now, Me: me.Addresses, MeName: me.Name})
	if err != nil {
		return glance.Decision{}, fmt.Errorf("judge thread %d: %w", t.ID, err)
	}
	return d, nil
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(strings.TrimSpace(v), strings.TrimSpace(s)) {
			return true
		}
	}
	return false
}
