package proposal

import (
	"strings"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/index"
)

// ThreadOf is index thread t as Check reads it: its people but the lawyer
// (isMe), and as Sender whoever wrote messageID (the message a reply
// answers), else the newest message not from the lawyer.
func ThreadOf(t index.Thread, messageID string, isMe func(addr string) bool) Thread {
	th := Thread{ID: t.ID, Subject: strings.TrimSpace(t.Subject)}
	seen := map[string]int{} // address → index in People
	add := func(as ...mail.Address) {
		for _, a := range as {
			e := lower(a.Email)
			if e == "" || isMe(e) {
				continue
			}
			if i, ok := seen[e]; ok {
				if th.People[i].Name == "" {
					th.People[i].Name = strings.TrimSpace(a.Name)
				}
				continue
			}
			seen[e] = len(th.People)
			th.People = append(th.People, Person{Name: strings.TrimSpace(a.Name), Email: e})
		}
	}
	add(t.Participants...)
	var sender *index.ThreadMessage
	for i := range t.Messages {
		m := &t.Messages[i]
		add(m.From)
		add(m.To...)
		add(m.Cc...)
		switch {
		case messageID != "" && m.MessageID == messageID:
			sender = m
		case messageID == "" && !m.FromMe && !isMe(lower(m.From.Email)) && (sender == nil || !m.Date.Before(sender.Date)):
			sender = m
		}
	}
	if th.Subject == "" && len(t.Messages) > 0 {
		th.Subject = strings.TrimSpace(t.Messages[len(t.Messages)-1].Subject)
	}
	if sender != nil && !sender.FromMe && !isMe(lower(sender.From.Email)) {
		th.Sender = Person{Name: strings.TrimSpace(sender.From.Name), Email: lower(sender.From.Email)}
	}
	return th
}
