package proposal

import (
	"strings"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/index"
)

// ThreadOf is index thread t as Check reads it: its people but the lawyer
// (me), and as Sender whoever wrote messageID (the message a reply
// answers), else the newest message a person other than the lawyer
// wrote, with what the
// mail model says of that message: whether a machine sent it, and
// whether it was to the lawyer.
func ThreadOf(t index.Thread, messageID string, me mail.Me) Thread {
	isMe := me.Is
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
	// With no message named, the one to answer is the newest a person
	// wrote; an out-of-office answer or a portal's notice that came after
	// it is not what the lawyer owes a reply to. Only when machines wrote
	// every message is the newest of theirs taken, so Check can say why.
	var sender, machine *index.ThreadMessage
	newer := func(m, than *index.ThreadMessage) bool { return than == nil || !m.Date.Before(than.Date) }
	for i := range t.Messages {
		m := &t.Messages[i]
		add(m.From)
		add(m.To...)
		add(m.Cc...)
		switch {
		case messageID != "":
			if m.MessageID == messageID {
				sender = m
			}
		case m.FromMe || isMe(lower(m.From.Email)):
		case mail.Automated(m.From, m.Subject, m.Headers, m.Body) != mail.None:
			if newer(m, machine) {
				machine = m
			}
		case newer(m, sender):
			sender = m
		}
	}
	if sender == nil {
		sender = machine
	}
	if th.Subject == "" && len(t.Messages) > 0 {
		th.Subject = strings.TrimSpace(t.Messages[len(t.Messages)-1].Subject)
	}
	if sender != nil && !sender.FromMe && !isMe(lower(sender.From.Email)) {
		th.Sender = Person{Name: strings.TrimSpace(sender.From.Name), Email: lower(sender.From.Email)}
		th.Automated = mail.Automated(sender.From, sender.Subject, sender.Headers, sender.Body)
		th.Audience = mail.AudienceOf(sender.To, sender.Cc, sender.Body, me)
	}
	return th
}
