// Package events is Spirit's typed in-process event bus: one stream that the
// parts which notice things (the app-switch watcher, the microphone, mail sync,
// the agents, the reminder clock, the supervisor) publish to, and that the
// parts which react (the desktop UI, the local API, the nudge logic) read from.
//
// Why a bus: without it every producer would hold a reference to every
// consumer, and adding a consumer (say, a second window) would mean touching
// every producer. With it, a producer needs only a Logger (one method) and a
// consumer subscribes to the types it cares about with a bit mask.
//
// Why Log never blocks: producers include the audio path and the app-switch
// watcher, which must not stall because the UI is busy or a subscriber
// forgot to read. Each subscriber has its own buffered channel; when it is
// full the event is dropped for that subscriber only, and the loss is counted
// (Subscription.Dropped, Bus.Dropped) so /health can show it instead of the
// process quietly falling behind.
//
// The design follows syncthing's lib/events (bit-mask types, global event
// IDs, per-subscriber channels) with two differences: there is no serving
// goroutine (Log delivers under a mutex, so a Bus works without being started
// and leaves nothing to shut down), and delivery never waits (syncthing waits
// up to 15 ms per subscriber).
//
// Guarantees: event IDs are a global sequence starting at 1; each subscriber
// receives the events it selected in publish (ID) order, with gaps only where
// its buffer was full; Log, Subscribe and Unsubscribe are safe to call from
// any goroutine at the same time.
package events

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Type identifies what happened. Each type is one bit, so a subscriber selects
// several types at once with a mask (AgentLifecycle|TaskDone).
type Type uint64

const (
	AppSwitched         Type = 1 << iota // Data: screen.Switch (the app-switch watcher)
	SpeechHearing                        // Data: bool, speech started (true) or ended (false)
	UtteranceHeard                       // Data: Utterance (named so it does not collide with the Utterance struct)
	ScreenTextRead                       // Data: ScreenText
	MailSynced                           // Data: MailSync
	NudgeShown                           // Data: store.Nudge (a nudge to put in front of the lawyer)
	NudgeAnswered                        // Data: NudgeAnswer
	NudgeWithdrawn                       // Data: int64, the nudge id (answered elsewhere or no longer current)
	AgentLifecycle                       // Data: AgentChange
	AgentsWorking                        // Data: int, agents running now
	TaskDone                             // Data: string, the session of a task that finished well
	ReminderDue                          // Data: int64, the reminder id
	StatusChanged                        // Data: nil; read the status from the core
	ShowRequested                        // Data: nil; a second instance asked Spirit to show itself
	NotifyRequested                      // Data: Notification
	RemindersRequested                   // Data: nil; open the Reminders window
	ServiceChanged                       // Data: ServiceState (from the supervisor)
	HUDChanged                           // Data: string, the analysis loop's new HUD line (agents/digest)
	UtteranceUnderstood                  // Data: Utterance with Intent set, once the commands part has read an UtteranceHeard
	WatchingPaused                       // Data: bool, the screen watcher was paused (true) or resumed (false)
)

// AllEvents selects every type, including ones added later.
const AllEvents = ^Type(0)

// typeNames holds the name of bit i at index i.
var typeNames = [...]string{
	"AppSwitched",
	"SpeechHearing",
	"UtteranceHeard",
	"ScreenTextRead",
	"MailSynced",
	"NudgeShown",
	"NudgeAnswered",
	"NudgeWithdrawn",
	"AgentLifecycle",
	"AgentsWorking",
	"TaskDone",
	"ReminderDue",
	"StatusChanged",
	"ShowRequested",
	"NotifyRequested",
	"RemindersRequested",
	"ServiceChanged",
	"HUDChanged",
	"UtteranceUnderstood",
	"WatchingPaused",
}

// knownTypes is the mask of every type that has a name.
const knownTypes = Type(1)<<len(typeNames) - 1

// String returns the type's name ("AppSwitched"). A mask of several types
// joins their names with "|"; bits without a name are shown as one
// "Type(0x…)"; AllEvents is "AllEvents" and the zero mask "Type(0x0)".
func (t Type) String() string {
	switch {
	case t == AllEvents:
		return "AllEvents"
	case t == 0:
		return "Type(0x0)"
	case t&(t-1) == 0 && t&knownTypes != 0: // one known bit: no allocation
		return typeNames[bits.TrailingZeros64(uint64(t))]
	}
	var parts []string
	for rest := t & knownTypes; rest != 0; rest &= rest - 1 {
		parts = append(parts, typeNames[bits.TrailingZeros64(uint64(rest))])
	}
	if unknown := t &^ knownTypes; unknown != 0 {
		parts = append(parts, fmt.Sprintf("Type(%#x)", uint64(unknown)))
	}
	return strings.Join(parts, "|")
}

// Utterance is the Data of UtteranceHeard and UtteranceUnderstood: one
// stretch of transcribed speech.
type Utterance struct {
	Text string
	At   time.Time // when the speech started
	// Intent is what the commands part made of the words, set only on
	// UtteranceUnderstood: "" for speech not addressed to Spirit (ambient
	// speech, a call), else the command's kind ("remind", …), or "none"
	// for words led by the wake phrase that Spirit could not read. Only ""
	// is conversation: the analysis loop and the commitment detector
	// never count a command as something said on a call.
	Intent string
}

// ScreenText is the Data of ScreenTextRead: text was read off the screen.
type ScreenText struct {
	App   string
	Chars int
	// Text is what was read, at most MaxScreenText runes. It lives in
	// memory only: the analysis loop keeps it for the window in front,
	// until the next switch or a pause, and sends it nowhere but in its
	// prompt to the lawyer's model provider. Never stored, never logged.
	Text string
	// Switched is the At of the switch the read belongs to, so that a read
	// that ends after the lawyer moved on is not taken for the new
	// window's text.
	Switched time.Time
}

// MaxScreenText bounds ScreenText.Text: a message header, a paragraph.
const MaxScreenText = 2000

// MailSync is the Data of MailSynced: one sync pass of one account.
type MailSync struct {
	Account          int64
	Applied, Skipped int
}

// NudgeAnswer is the Data of NudgeAnswered: the lawyer's answer to a nudge.
type NudgeAnswer struct {
	ID           int64
	Choice, Text string
}

// AgentChange is the Data of AgentLifecycle: a task agent changed phase.
type AgentChange struct {
	Session, Phase string
}

// Notification is the Data of NotifyRequested: a desktop notification to show.
type Notification struct {
	Title, Body string
}

// ServiceState is the Data of ServiceChanged: where one supervised part is.
type ServiceState struct {
	Name      string
	State     string // "starting", "running", "restarting", "done", "stopped"
	LastError string // "" if the part has not failed
	Restarts  int
}

// Event is one thing that happened.
type Event struct {
	ID   int64 // global sequence, from 1, in publish order
	Time time.Time
	Type Type
	Data any // see the comment on each Type
}

// Logger is what publishers need. Depend on it rather than on *Bus, so a part
// can be built and tested without a bus (Noop).
type Logger interface {
	Log(t Type, data any)
}

// Noop is a Logger that drops everything: for tests and for parts started
// without a bus.
type Noop struct{}

// Log does nothing.
func (Noop) Log(Type, any) {}

// DefaultBuffer is the channel capacity of a subscription asked for with
// buffer <= 0.
const DefaultBuffer = 256

var (
	_ Logger = (*Bus)(nil)
	_ Logger = Noop{}
)

// Bus delivers events to subscribers. The zero value is not usable; call
// NewBus.
type Bus struct {
	mu     sync.Mutex
	nextID int64           // guarded by mu
	subs   []*Subscription // guarded by mu

	published atomic.Int64
	dropped   atomic.Int64
}

// NewBus returns a bus with no subscribers.
func NewBus() *Bus {
	return &Bus{}
}

// Log publishes an event to every subscriber whose mask selects t. It never
// blocks: a subscriber whose buffer is full loses the event, and the loss is
// counted. With no subscribers it costs a lock and a clock read.
func (b *Bus) Log(t Type, data any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	// IDs are assigned and events sent under one lock, so every subscriber
	// sees IDs in increasing order.
	b.nextID++
	b.published.Store(b.nextID)
	e := Event{ID: b.nextID, Time: time.Now(), Type: t, Data: data}
	for _, s := range b.subs {
		if s.mask&t == 0 {
			continue
		}
		select {
		case s.ch <- e:
		default:
			s.dropped.Add(1)
			b.dropped.Add(1)
		}
	}
}

// Subscribe returns a subscription to the types in mask (a zero mask selects
// nothing). buffer is the channel capacity; buffer <= 0 means DefaultBuffer.
// Events published before Subscribe returns are not delivered.
func (b *Bus) Subscribe(mask Type, buffer int) *Subscription {
	if buffer <= 0 {
		buffer = DefaultBuffer
	}
	s := &Subscription{bus: b, mask: mask, ch: make(chan Event, buffer)}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.subs = append(b.subs, s)
	return s
}

// Dropped is the number of events lost by all subscribers (including ones
// since unsubscribed) because their buffers were full.
func (b *Bus) Dropped() int64 { return b.dropped.Load() }

// Published is the number of events logged since the bus was made, which is
// also the ID of the latest event.
func (b *Bus) Published() int64 { return b.published.Load() }

func (b *Bus) unsubscribe(s *Subscription) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	b.subs = slices.DeleteFunc(b.subs, func(x *Subscription) bool { return x == s })
	// Sends happen only under b.mu, and s is no longer in b.subs: closing
	// here cannot race with a send.
	close(s.ch)
}

// Subscription is one subscriber's view of the bus. Read events from C.
type Subscription struct {
	bus     *Bus
	mask    Type
	ch      chan Event
	closed  bool // guarded by bus.mu
	dropped atomic.Int64
}

// C returns the channel events arrive on. Unsubscribe closes it; events
// already buffered can still be read.
func (s *Subscription) C() <-chan Event { return s.ch }

// Dropped is the number of events this subscriber lost because its buffer
// was full.
func (s *Subscription) Dropped() int64 { return s.dropped.Load() }

// Unsubscribe stops delivery and closes C. It is idempotent and safe to call
// concurrently with Log.
func (s *Subscription) Unsubscribe() { s.bus.unsubscribe(s) }
