package events

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

func TestTypeString(t *testing.T) {
	tests := []struct {
		name string
		in   Type
		want string
	}{
		{"first", AppSwitched, "AppSwitched"},
		{"middle", NudgeAnswered, "NudgeAnswered"},
		{"last", ServiceChanged, "ServiceChanged"},
		{"utterance", UtteranceHeard, "UtteranceHeard"},
		{"two bits in bit order", TaskDone | AgentLifecycle, "AgentLifecycle|TaskDone"},
		{"three bits", AppSwitched | SpeechHearing | ServiceChanged, "AppSwitched|SpeechHearing|ServiceChanged"},
		{"unknown bit", Type(1) << 40, "Type(0x10000000000)"},
		{"highest bit", Type(1) << 63, "Type(0x8000000000000000)"},
		{"known and unknown", MailSynced | Type(1)<<40 | Type(1)<<41, "MailSynced|Type(0x30000000000)"},
		{"zero", 0, "Type(0x0)"},
		{"all", AllEvents, "AllEvents"},
		{"every known", knownTypes, "AppSwitched|SpeechHearing|UtteranceHeard|ScreenTextRead|MailSynced|" +
			"NudgeShown|NudgeAnswered|NudgeWithdrawn|AgentLifecycle|AgentsWorking|TaskDone|ReminderDue|" +
			"StatusChanged|ShowRequested|NotifyRequested|RemindersRequested|ServiceChanged|HUDChanged|UtteranceUnderstood|WatchingPaused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.in.String(); got != tt.want {
				t.Errorf("Type(%#x).String() = %q, want %q", uint64(tt.in), got, tt.want)
			}
		})
	}
}

// TestTypeConstants pins each constant to its bit and name: the bits are a
// contract with every subscriber's mask, so a reorder must fail here.
func TestTypeConstants(t *testing.T) {
	tests := []struct {
		typ  Type
		bit  uint
		name string
	}{
		{AppSwitched, 0, "AppSwitched"},
		{SpeechHearing, 1, "SpeechHearing"},
		{UtteranceHeard, 2, "UtteranceHeard"},
		{ScreenTextRead, 3, "ScreenTextRead"},
		{MailSynced, 4, "MailSynced"},
		{NudgeShown, 5, "NudgeShown"},
		{NudgeAnswered, 6, "NudgeAnswered"},
		{NudgeWithdrawn, 7, "NudgeWithdrawn"},
		{AgentLifecycle, 8, "AgentLifecycle"},
		{AgentsWorking, 9, "AgentsWorking"},
		{TaskDone, 10, "TaskDone"},
		{ReminderDue, 11, "ReminderDue"},
		{StatusChanged, 12, "StatusChanged"},
		{ShowRequested, 13, "ShowRequested"},
		{NotifyRequested, 14, "NotifyRequested"},
		{RemindersRequested, 15, "RemindersRequested"},
		{ServiceChanged, 16, "ServiceChanged"},
		{HUDChanged, 17, "HUDChanged"},
		{UtteranceUnderstood, 18, "UtteranceUnderstood"},
		{WatchingPaused, 19, "WatchingPaused"},
	}
	if len(tests) != len(typeNames) {
		t.Fatalf("table has %d types, typeNames has %d", len(tests), len(typeNames))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := tt.typ, Type(1)<<tt.bit; got != want {
				t.Errorf("value = %#x, want %#x", uint64(got), uint64(want))
			}
			if got := tt.typ.String(); got != tt.name {
				t.Errorf("String() = %q, want %q", got, tt.name)
			}
			if AllEvents&tt.typ == 0 {
				t.Errorf("AllEvents does not select %s", tt.name)
			}
		})
	}
}

// drain reads what is buffered on s without waiting.
func drain(s *Subscription) []Event {
	var got []Event
	for {
		select {
		case e, ok := <-s.C():
			if !ok {
				return got
			}
			got = append(got, e)
		default:
			return got
		}
	}
}

func types(es []Event) []Type {
	var ts []Type
	for _, e := range es {
		ts = append(ts, e.Type)
	}
	return ts
}

func TestSubscribeMask(t *testing.T) {
	published := []Type{AppSwitched, UtteranceHeard, TaskDone, Type(1) << 50, ServiceChanged, TaskDone}
	tests := []struct {
		name string
		mask Type
		want []Type
	}{
		{"one type", TaskDone, []Type{TaskDone, TaskDone}},
		{"two types", AppSwitched | ServiceChanged, []Type{AppSwitched, ServiceChanged}},
		{"all", AllEvents, published},
		{"unpublished type", ReminderDue, nil},
		{"zero mask", 0, nil},
		{"future bit", Type(1) << 50, []Type{Type(1) << 50}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBus()
			s := b.Subscribe(tt.mask, 0)
			defer s.Unsubscribe()
			for _, typ := range published {
				b.Log(typ, nil)
			}
			if got := types(drain(s)); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestEventFields(t *testing.T) {
	b := NewBus()
	s := b.Subscribe(AllEvents, 0)
	defer s.Unsubscribe()

	before := time.Now()
	data := []any{
		Utterance{Text: "remind me", Intent: "remind"},
		MailSync{Account: 7, Applied: 3, Skipped: 1},
		nil,
	}
	typs := []Type{UtteranceHeard, MailSynced, StatusChanged}
	for i := range data {
		b.Log(typs[i], data[i])
	}
	after := time.Now()

	got := drain(s)
	if len(got) != len(data) {
		t.Fatalf("got %d events, want %d", len(got), len(data))
	}
	for i, e := range got {
		if e.ID != int64(i+1) {
			t.Errorf("event %d: ID = %d, want %d", i, e.ID, i+1)
		}
		if e.Type != typs[i] {
			t.Errorf("event %d: Type = %v, want %v", i, e.Type, typs[i])
		}
		if e.Data != data[i] {
			t.Errorf("event %d: Data = %#v, want %#v", i, e.Data, data[i])
		}
		if e.Time.Before(before) || e.Time.After(after) {
			t.Errorf("event %d: Time %v not within [%v, %v]", i, e.Time, before, after)
		}
	}
	if got, want := b.Published(), int64(3); got != want {
		t.Errorf("Published() = %d, want %d", got, want)
	}
}

func TestIDsCountEventsNobodyReceives(t *testing.T) {
	b := NewBus()
	b.Log(AppSwitched, nil) // no subscriber: ID 1
	s := b.Subscribe(TaskDone, 0)
	defer s.Unsubscribe()
	b.Log(AppSwitched, nil) // not selected: ID 2
	b.Log(TaskDone, "s1")   // ID 3

	got := drain(s)
	if len(got) != 1 || got[0].ID != 3 {
		t.Fatalf("got %+v, want one event with ID 3", got)
	}
	if got, want := b.Published(), int64(3); got != want {
		t.Errorf("Published() = %d, want %d", got, want)
	}
}

func TestBufferSize(t *testing.T) {
	tests := []struct {
		name   string
		buffer int
		want   int
	}{
		{"negative", -1, DefaultBuffer},
		{"zero", 0, DefaultBuffer},
		{"one", 1, 1},
		{"explicit", 1000, 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewBus().Subscribe(AllEvents, tt.buffer)
			defer s.Unsubscribe()
			if got := cap(s.C()); got != tt.want {
				t.Errorf("cap(C()) = %d, want %d", got, tt.want)
			}
		})
	}
	if DefaultBuffer != 256 {
		t.Errorf("DefaultBuffer = %d, want 256", DefaultBuffer)
	}
}

func TestFullBufferDrops(t *testing.T) {
	tests := []struct {
		name        string
		buffer      int
		publish     int
		wantIDs     []int64
		wantDropped int64
	}{
		{"fits", 3, 3, []int64{1, 2, 3}, 0},
		{"overflow keeps the oldest", 2, 5, []int64{1, 2}, 3},
		{"buffer of one", 1, 4, []int64{1}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBus()
			slow := b.Subscribe(AllEvents, tt.buffer)
			defer slow.Unsubscribe()
			fast := b.Subscribe(AllEvents, tt.publish)
			defer fast.Unsubscribe()

			for range tt.publish {
				b.Log(StatusChanged, nil) // must not block
			}

			var gotIDs []int64
			for _, e := range drain(slow) {
				gotIDs = append(gotIDs, e.ID)
			}
			if !slices.Equal(gotIDs, tt.wantIDs) {
				t.Errorf("slow got IDs %v, want %v", gotIDs, tt.wantIDs)
			}
			if got := slow.Dropped(); got != tt.wantDropped {
				t.Errorf("slow.Dropped() = %d, want %d", got, tt.wantDropped)
			}
			if got := len(drain(fast)); got != tt.publish {
				t.Errorf("fast got %d events, want %d: one slow subscriber must not cost another", got, tt.publish)
			}
			if got := fast.Dropped(); got != 0 {
				t.Errorf("fast.Dropped() = %d, want 0", got)
			}
			if got := b.Dropped(); got != tt.wantDropped {
				t.Errorf("bus Dropped() = %d, want %d", got, tt.wantDropped)
			}

			// Once read, the slow subscriber receives again.
			b.Log(StatusChanged, nil)
			if got := len(drain(slow)); got != 1 {
				t.Errorf("after draining, slow got %d events, want 1", got)
			}
		})
	}
}

func TestUnsubscribe(t *testing.T) {
	b := NewBus()
	s := b.Subscribe(AllEvents, 1)
	other := b.Subscribe(AllEvents, 10)
	defer other.Unsubscribe()

	b.Log(TaskDone, "a")
	b.Log(TaskDone, "b") // dropped: buffer of one
	s.Unsubscribe()
	s.Unsubscribe() // idempotent
	b.Log(TaskDone, "c")

	// The buffered event is still readable, then the channel is closed.
	e, ok := <-s.C()
	if !ok || e.Data != "a" {
		t.Errorf("first read = %+v, %v; want the buffered event \"a\"", e, ok)
	}
	if _, ok := <-s.C(); ok {
		t.Error("C() not closed after Unsubscribe")
	}
	if got, want := s.Dropped(), int64(1); got != want {
		t.Errorf("s.Dropped() = %d, want %d", got, want)
	}
	// The bus total keeps what unsubscribed subscribers lost.
	if got, want := b.Dropped(), int64(1); got != want {
		t.Errorf("b.Dropped() = %d, want %d", got, want)
	}
	if got, want := len(drain(other)), 3; got != want {
		t.Errorf("other got %d events, want %d", got, want)
	}
}

func TestLoggers(t *testing.T) {
	tests := []struct {
		name string
		l    Logger
	}{
		{"noop", Noop{}},
		{"bus", NewBus()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.l.Log(AppSwitched, nil) // must not panic or block
		})
	}
}

func TestLogWithoutSubscribersDoesNotAllocate(t *testing.T) {
	b := NewBus()
	var data any = Notification{Title: "t"} // boxed once, outside the loop
	allocs := testing.AllocsPerRun(1000, func() { b.Log(NotifyRequested, data) })
	if allocs != 0 {
		t.Errorf("Log with no subscribers: %v allocations, want 0", allocs)
	}
	s := b.Subscribe(TaskDone, 1)
	defer s.Unsubscribe()
	allocs = testing.AllocsPerRun(1000, func() { b.Log(NotifyRequested, data) })
	if allocs != 0 {
		t.Errorf("Log with no matching subscriber: %v allocations, want 0", allocs)
	}
}

// TestConcurrent runs publishers, a steady subscriber and churning
// subscribers at once. Run with -race. It checks that every subscriber sees
// strictly increasing IDs, that the steady subscriber sees each publisher's
// events in that publisher's order, and that nothing is lost when buffers
// are large enough.
func TestConcurrent(t *testing.T) {
	const (
		publishers = 8
		perPub     = 500
		churners   = 8
	)
	b := NewBus()
	steady := b.Subscribe(AllEvents, publishers*perPub)

	type msg struct{ pub, seq int }

	var wg sync.WaitGroup
	errs := make(chan error, publishers+churners+1)
	stop := make(chan struct{})

	// Churning subscribers: subscribe, read a little, unsubscribe, repeat.
	for c := range churners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mask := AllEvents
			if c%2 == 1 {
				mask = TaskDone // sees only some
			}
			for {
				select {
				case <-stop:
					return
				default:
				}
				s := b.Subscribe(mask, 4)
				var last int64
				for range 3 {
					select {
					case e := <-s.C():
						if e.ID <= last {
							errs <- fmt.Errorf("churner %d: ID %d after %d", c, e.ID, last)
							return
						}
						last = e.ID
					default:
					}
				}
				s.Unsubscribe()
				for e := range s.C() { // drains the rest, then sees the close
					if e.ID <= last {
						errs <- fmt.Errorf("churner %d: ID %d after %d", c, e.ID, last)
						return
					}
					last = e.ID
				}
			}
		}()
	}

	var pubs sync.WaitGroup
	for p := range publishers {
		pubs.Add(1)
		go func() {
			defer pubs.Done()
			for i := range perPub {
				typ := AppSwitched
				if i%3 == 0 {
					typ = TaskDone
				}
				b.Log(typ, msg{p, i})
			}
		}()
	}
	pubs.Wait()
	close(stop)
	wg.Wait()
	steady.Unsubscribe()

	close(errs)
	for err := range errs {
		t.Error(err)
	}

	next := make([]int, publishers)
	var last int64
	n := 0
	for e := range steady.C() {
		n++
		if e.ID <= last {
			t.Fatalf("steady: ID %d after %d", e.ID, last)
		}
		last = e.ID
		m := e.Data.(msg)
		if m.seq != next[m.pub] {
			t.Fatalf("steady: publisher %d event %d arrived when %d was next", m.pub, m.seq, next[m.pub])
		}
		next[m.pub]++
	}
	if got, want := n, publishers*perPub; got != want {
		t.Errorf("steady got %d events, want %d", got, want)
	}
	if got := steady.Dropped(); got != 0 {
		t.Errorf("steady.Dropped() = %d, want 0", got)
	}
	if got, want := b.Published(), int64(publishers*perPub); got != want {
		t.Errorf("Published() = %d, want %d", got, want)
	}
}

// TestUnsubscribeDuringLog races Unsubscribe with Log on the same
// subscription: the close must never meet a send.
func TestUnsubscribeDuringLog(t *testing.T) {
	b := NewBus()
	for range 200 {
		s := b.Subscribe(AllEvents, 1)
		var wg sync.WaitGroup
		wg.Add(3)
		go func() { defer wg.Done(); b.Log(AppSwitched, nil); b.Log(AppSwitched, nil) }()
		go func() { defer wg.Done(); s.Unsubscribe() }()
		go func() { defer wg.Done(); s.Unsubscribe() }()
		wg.Wait()
		for range s.C() {
		}
	}
}

func BenchmarkLog(b *testing.B) {
	for _, subs := range []int{0, 1, 8} {
		b.Run(fmt.Sprintf("subscribers=%d", subs), func(b *testing.B) {
			bus := NewBus()
			for range subs {
				s := bus.Subscribe(AllEvents, 1) // full after one: measures the drop path
				defer s.Unsubscribe()
			}
			b.ReportAllocs()
			for b.Loop() {
				bus.Log(StatusChanged, nil)
			}
		})
	}
}
