// Package desktop is Spirit's Fyne front end: the tray menu, the orb docked
// at the screen's edge, the nudge bubble and its queue, and the Settings,
// Activity and Reminders windows. It implements app.UI.
//
// It talks to the core through two doors only: the event stream, which
// tells it what to show (nudges, status, the orb's moods), and the Core
// interface below, which it calls to act (answer a nudge, pause, change a
// setting). It never holds the store, the scheduler or the keychain.
package desktop

import (
	"context"
	"io"
	"log/slog"
	"time"

	"fyne.io/fyne/v2"

	"github.com/spirit-app/spirit/agents/calendar"
	"github.com/spirit-app/spirit/agents/llm/setup"
	"github.com/spirit-app/spirit/agents/mail/accounts"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/events"
	"github.com/spirit-app/spirit/app/settings"
	"github.com/spirit-app/spirit/platform"
	"github.com/spirit-app/spirit/screen"
)

// AppID is Spirit's application id (Fyne preferences, desktop entry).
const AppID = "app.spirit.desktop"

// Core is what the desktop asks of Spirit's core (*app.Core): exactly the
// calls its menus, bubble and windows make.
type Core interface {
	// The tray's status line and toggles.
	Status() app.Status
	SetListeningPaused(ctx context.Context, paused bool, by string) error
	SetWatchingPaused(ctx context.Context, paused bool, by string) error

	// Nudges: those still open when the desktop starts, and the answers.
	Waiting(ctx context.Context) ([]store.Nudge, error)
	Answer(ctx context.Context, id int64, choice, text string) (store.Nudge, error)

	// The Activity window.
	Agents(ctx context.Context) ([]api.Agent, error)
	Agent(ctx context.Context, session string) (api.AgentDetail, error)
	CancelAgent(ctx context.Context, session string) (api.Agent, error)
	LastEventID(ctx context.Context) (int64, error)
	Recent(ctx context.Context, n int) ([]store.Entry, error)
	Document(ctx context.Context, id int64) (store.Document, error)

	// The orb's tooltip and the first line of its panel.
	HUDLine() string

	// The Settings window and the hotkeys.
	Settings(ctx context.Context) (settings.Settings, error)
	UpdateSettings(ctx context.Context, by string, change func(*settings.Settings)) ([]string, error)
	VoiceState() (state, detail string)
	DatabasePath() string
	Autostart() (platform.Autostart, error)
	ExportActivity(ctx context.Context, w io.Writer) (int, error)
	SetAutostart(ctx context.Context, on bool, by string) (platform.Autostart, error)

	// The Reminders window.
	Reminders(ctx context.Context) ([]store.Reminder, error)
	UpdateReminder(ctx context.Context, id int64, u store.ReminderUpdate) (store.Reminder, error)
	DeleteReminder(ctx context.Context, id int64) error
	CompleteReminder(ctx context.Context, id int64) (store.Reminder, error)

	// Settings' Mail accounts page.
	MailAccounts(ctx context.Context) (app.MailAccounts, error)
	AddMailAccount(ctx context.Context, a index.Account, credentials func(context.Context) (accounts.Credentials, error)) (index.Account, error)
	RemoveMailAccount(ctx context.Context, id int64) error
	SignInMailAgain(ctx context.Context, id int64, tell func(msg, url string)) (index.Account, error)
	EditMailAccount(ctx context.Context, id int64, change func(*index.Account) error) (index.Account, error)
	SyncMailNow()

	// Settings' Calendars page.
	Calendars(ctx context.Context) ([]app.CalendarInfo, error)
	AddCalendar(ctx context.Context, nc calendar.NewCalendar, progress func(string)) ([]app.CalendarAdded, error)
	RemoveCalendar(ctx context.Context, id int64) error
	SyncCalendarsNow(ctx context.Context) error
	CloudCalendars(ctx context.Context, account int64) ([]calendar.CloudCalendar, error)
	AddCloudCalendar(ctx context.Context, account int64, calendarID string) (store.Calendar, error)

	// Settings' Model provider page.
	ProviderSettings(ctx context.Context) (setup.Settings, error)
	SaveProviderSettings(ctx context.Context, s setup.Settings, apiKey string) error
	TestProvider(ctx context.Context, s setup.Settings, apiKey string) (string, error)

	// Settings' Speech page and the first-run window.
	SpeechModelInUse() string
	SpeechModelsChanged(ctx context.Context, what string)

	// Settings' "Delete all Spirit data…".
	DeleteAllData(ctx context.Context, d app.DeleteAll) error
	// Quit stops Spirit as SIGTERM does; false where nothing runs the
	// core as Spirit.
	Quit() bool
}

var _ Core = (*app.Core)(nil)

// shown are the events the desktop shows.
const shown = events.NudgeShown | events.NudgeWithdrawn | events.StatusChanged | events.ServiceChanged |
	events.ShowRequested | events.NotifyRequested | events.RemindersRequested |
	events.SpeechHearing | events.AgentsWorking | events.TaskDone | events.AppSwitched | events.HUDChanged

// New builds the desktop for c. It subscribes to bus at once, so what is
// said while Spirit starts waits in the subscription until the windows are
// up. It matches app.Config.Desktop.
func New(c *app.Core, bus *events.Bus, log *slog.Logger) (app.UI, error) {
	return newGUI(c, bus.Subscribe(shown, 0), log), nil
}

func newGUI(c Core, sub *events.Subscription, log *slog.Logger) *gui {
	g := &gui{core: c, sub: sub, log: log, up: make(chan struct{}), models: defaultModelSource()}
	g.bubbles = newBubbleQueue(g, fyneClock{}, log)
	return g
}

// Events shows what the stream says until ctx ends. It waits until the
// windows are up (Run's started), then shows the nudges still open, oldest
// first, and then each event as it comes.
func (g *gui) Events(ctx context.Context) error {
	defer g.sub.Unsubscribe()
	select {
	case <-ctx.Done():
		return nil
	case <-g.up:
	}
	open, err := g.core.Waiting(ctx)
	if err != nil {
		g.log.Error("read open nudges", "err", err)
	}
	for _, n := range open {
		g.do(func() { g.nudgeShown(n) })
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-g.sub.C():
			if !ok {
				return nil
			}
			g.handle(ev)
		}
	}
}

// handle shows one event; it runs on the Events goroutine and hands the
// widget work to the main thread.
func (g *gui) handle(ev events.Event) {
	switch ev.Type {
	case events.NudgeShown:
		n := ev.Data.(store.Nudge)
		g.do(func() { g.nudgeShown(n) })
	case events.NudgeWithdrawn:
		id := ev.Data.(int64)
		g.do(func() { g.nudgeClosed(id) })
	case events.StatusChanged, events.ServiceChanged:
		// A part failing or recovering changes the status line too.
		st := g.core.Status()
		g.do(func() { g.applyStatus(st) })
	case events.ShowRequested:
		g.do(g.show)
	case events.NotifyRequested:
		n := ev.Data.(events.Notification)
		g.fa.SendNotification(fyne.NewNotification(n.Title, n.Body))
	case events.RemindersRequested:
		g.do(g.showReminders)
	case events.SpeechHearing:
		on := ev.Data.(bool)
		g.do(func() {
			g.hearing = on
			g.updateOrb()
		})
	case events.AgentsWorking:
		n := ev.Data.(int)
		g.do(func() {
			g.working = max(n, 0)
			g.updateOrb()
		})
	case events.AppSwitched:
		// A glance bubble folds back once the lawyer leaves its message.
		sw := ev.Data.(screen.Switch)
		if sw.Excluded {
			return // a private window names no window: bubbles stay as they are
		}
		g.do(func() { g.bubbles.switched(sw.Window, sw.Title, sw.PaneChanged) })
	case events.HUDChanged:
		line := ev.Data.(string)
		g.do(func() { g.setHUD(line) })
	case events.TaskDone:
		g.do(func() {
			if g.orbView != nil {
				g.orbView.Sparkle()
			}
		})
	}
}

// fyneClock folds bubbles by the wall clock, on the main thread.
type fyneClock struct{}

func (fyneClock) AfterFunc(d time.Duration, f func()) (stop func() bool) {
	return time.AfterFunc(d, func() { fyne.Do(f) }).Stop
}

// do runs f on the UI thread, as every change to a widget must: fyne.Do,
// unless a test set g.uiq. Fyne's test driver runs fyne.Do's f at once on
// the calling goroutine, so background work finishing during a test would
// touch widgets (and Fyne's text shaper, which is not safe for concurrent
// use) alongside the test itself; tests queue f instead and run it on
// their own goroutine.
func (g *gui) do(f func()) {
	if g.uiq != nil {
		g.uiq <- f
		return
	}
	fyne.Do(f)
}
