package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/platform/secrets"
	"github.com/spirit-app/spirit/voice/model"
)

// DeleteAll is what "Delete all Spirit data…" deletes beyond what always
// goes (the database: activity, reminders, the mail index, calendars,
// routines, settings; secrets.json: mail passwords and sign-ins, the model
// provider's key; events saved for the calendar).
type DeleteAll struct {
	// Models deletes the speech models too; they are not the lawyer's
	// data and take minutes to download again.
	Models bool
}

// ErrRestart is what Run returns after deleting all of Spirit's data at
// the lawyer's request: main starts Spirit again, clean.
var ErrRestart = errors.New("all Spirit data was deleted: Spirit starts again")

// DeleteAllData asks Spirit to stop, delete all its data in its folder and
// start again. It returns at once: Run stops every part and closes the
// database first, deletes while the folder is still locked
// (deleteAllData), then returns ErrRestart.
func (c *Core) DeleteAllData(ctx context.Context, d DeleteAll) error {
	if c.quit == nil {
		return errors.New("this Spirit cannot start itself again, so nothing is deleted")
	}
	c.mu.Lock()
	c.deleteAll = &d
	c.mu.Unlock()
	c.log.Warn("delete all data: Spirit stops, deletes its data and starts again", "speech_models", d.Models)
	c.quit()
	return nil
}

// deleteAllAsked is what DeleteAllData asked, if it was.
func (c *Core) deleteAllAsked() (DeleteAll, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.deleteAll == nil {
		return DeleteAll{}, false
	}
	return *c.deleteAll, true
}

// ownData picks, from the names in a data folder, those Spirit wrote: its
// database and SQLite's files beside it, the local API's file, the
// encrypted secrets (and copies moved aside as damaged, and unfinished
// writes), the events saved for the calendar, and the speech models when
// models is set. Anything else in the folder is not Spirit's to delete,
// and the lock file stays: Spirit holds it while it deletes.
func ownData(names []string, models bool) []string {
	exact := []string{
		store.FileName, store.FileName + "-wal", store.FileName + "-shm", store.FileName + "-journal",
		api.InfoFile, secrets.FileName, secrets.KeyFileName, filepath.Base(calendarEventsDir("")),
	}
	if models {
		exact = append(exact, filepath.Base(model.Dir("")))
	}
	var out []string
	for _, n := range names {
		switch {
		case slices.Contains(exact, n),
			strings.HasPrefix(n, secrets.FileName+".broken-"), strings.HasPrefix(n, secrets.KeyFileName+".broken-"),
			strings.HasPrefix(n, secrets.FileName+".tmp"),
			strings.HasPrefix(n, "."+api.InfoFile+".") && strings.HasSuffix(n, ".tmp"):
			out = append(out, n)
		}
	}
	return out
}

// deleteOwnData deletes Spirit's own files in dataDir (ownData) and
// returns the names it deleted. A link is deleted as a link: what it
// points to, even a folder, is never touched (os.RemoveAll unlinks a
// link, it does not follow it), and nothing outside dataDir is looked at.
// It goes on past a failure and returns every failure joined.
func deleteOwnData(dataDir string, models bool) ([]string, error) {
	entries, err := os.ReadDir(dataDir)
	if err != nil {
		return nil, fmt.Errorf("read the data folder: %w", err)
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	var deleted []string
	var errs []error
	for _, n := range ownData(names, models) {
		if err := os.RemoveAll(filepath.Join(dataDir, n)); err != nil {
			errs = append(errs, fmt.Errorf("could not delete %s: %w", n, err))
			continue
		}
		deleted = append(deleted, n)
	}
	return deleted, errors.Join(errs...)
}

// deleteAllData deletes what "Delete all Spirit data" deletes: the
// keychain entry Spirit made for this folder (the key to secrets.json;
// secrets.Forget reads which from secrets.json, so it goes first), then
// Spirit's files (deleteOwnData). It goes on past a failure, logs what
// went and what is left, and returns every failure joined, each saying
// what the lawyer can do.
func deleteAllData(ctx context.Context, dataDir string, models bool, log *slog.Logger) error {
	forgot, ferr := secrets.Forget(ctx, dataDir)
	deleted, err := deleteOwnData(dataDir, models)
	log.Warn("all Spirit data deleted at the lawyer's request", "folder", dataDir, "deleted", strings.Join(deleted, ", "),
		"keychain", keychainWords(forgot, ferr))
	return errors.Join(ferr, err)
}

// keychainWords says what became of the folder's keychain entry.
func keychainWords(f secrets.Forgotten, err error) string {
	switch {
	case err != nil:
		return "the entry Spirit made is left (see the error)"
	case f.Account != "":
		return fmt.Sprintf("removed the entry Spirit made for this folder (service %q, account %q)", secrets.Service, f.Account)
	case f.Shared:
		return fmt.Sprintf("the entry older versions of Spirit shared between folders (service %q) stays: another folder may need it", secrets.Service)
	default:
		return "none: the key was kept in a file in the folder"
	}
}
