package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// maxPending bounds the world-log events kept in memory while another
// program holds the database locked: hours of ordinary activity, and a
// bound on memory should the lock never be released.
const maxPending = 4096

// pending holds world-log events that could not be written because the
// database was locked, oldest first. They are written, before anything
// else, by the next write transaction that gets the lock (see write), and
// a retry goroutine makes sure there is one while any wait.
type pending struct {
	mu       sync.Mutex
	evs      []pendingEvent
	retrying bool // a retry goroutine is running
	closed   bool // Close has begun: start no retry goroutine
	wg       sync.WaitGroup
}

// pendingEvent is an event with the time it happened, which is the time
// it is stamped with when it is finally written.
type pendingEvent struct {
	ev Event
	ms int64
}

// LogEvent appends ev to the world log like AppendEvent, except when
// another program holds the database locked (or ctx ends while the write
// waits for the lock): then ev is kept in memory,
// with the time it happened, and written in order before any later write,
// by the next write that gets the lock or by a retry with backoff, so no
// event is lost while the process lives. pending reports that ev was kept
// rather than written. Other failures are returned as errors.
func (s *Store) LogEvent(ctx context.Context, ev Event) (pending bool, err error) {
	if strings.TrimSpace(ev.Source) == "" {
		return false, fmt.Errorf("log event: %w: empty source", ErrInvalid)
	}
	_, ms := s.now()
	p := pendingEvent{ev: ev, ms: ms}
	err = s.write(ctx, func(tx *sql.Tx) error {
		_, err := insertEvent(ctx, tx, p)
		return err
	})
	if err == nil {
		return false, nil
	}
	if !couldNotWait(err) {
		return false, fmt.Errorf("log event: %w", err)
	}
	if err := s.keep(p); err != nil {
		return false, fmt.Errorf("log event: %w", err)
	}
	return true, nil
}

// couldNotWait tells a write that failed for want of the lock — SQLite gave
// up, or the caller's context ended while it waited — from one that failed.
func couldNotWait(err error) bool {
	return errors.Is(err, ErrBusy) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

// insertEvent writes one event stamped ms.
func insertEvent(ctx context.Context, tx *sql.Tx, p pendingEvent) (int64, error) {
	res, err := tx.ExecContext(ctx,
		`INSERT INTO world (ts, kind, source, identifier, text) VALUES (?, 'event', ?, ?, ?)`,
		p.ms, p.ev.Source, p.ev.Identifier, p.ev.Text)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// keep queues p behind the events already waiting and makes sure a retry
// goroutine is running.
func (s *Store) keep(p pendingEvent) error {
	s.pend.mu.Lock()
	defer s.pend.mu.Unlock()
	if s.pend.closed {
		return errors.New("the database was locked and the store is closing")
	}
	if len(s.pend.evs) >= maxPending {
		return fmt.Errorf("the database has been locked for too long: %d events already wait in memory", len(s.pend.evs))
	}
	s.pend.evs = append(s.pend.evs, p)
	if !s.pend.retrying {
		s.pend.retrying = true
		s.pend.wg.Add(1)
		go s.retryPending()
	}
	return nil
}

// Pending is how many world-log events wait in memory for the lock.
func (s *Store) Pending() int {
	s.pend.mu.Lock()
	defer s.pend.mu.Unlock()
	return len(s.pend.evs)
}

// writePendingTx writes the waiting events inside tx and returns how many
// it wrote; they leave the queue only once tx commits (pendingWritten).
// Writes are serialised on the one writer connection, so the events at the
// head of the queue cannot change in between.
func (s *Store) writePendingTx(ctx context.Context, tx *sql.Tx) (int, error) {
	s.pend.mu.Lock()
	evs := s.pend.evs[:len(s.pend.evs):len(s.pend.evs)]
	s.pend.mu.Unlock()
	for _, p := range evs {
		if _, err := insertEvent(ctx, tx, p); err != nil {
			return 0, fmt.Errorf("write pending events: %w", err)
		}
	}
	return len(evs), nil
}

// pendingWritten drops the first n events, committed by a write.
func (s *Store) pendingWritten(n int) {
	if n == 0 {
		return
	}
	s.pend.mu.Lock()
	s.pend.evs = append([]pendingEvent(nil), s.pend.evs[n:]...)
	left := len(s.pend.evs)
	s.pend.mu.Unlock()
	slog.Info("store: wrote world-log events kept while the database was locked", "path", s.path, "written", n, "still_pending", left)
}

// retryPending tries, with growing pauses, to write the waiting events,
// until none is left or the store closes. Each try waits only briefly for
// the lock: the single writer connection must not be held for a whole busy
// timeout while the lawyer's own writes queue behind it.
func (s *Store) retryPending() {
	defer s.pend.wg.Done()
	delay := s.retryMin
	for {
		t := time.NewTimer(delay)
		select {
		case <-s.life.Done():
			t.Stop()
			s.pend.mu.Lock()
			s.pend.retrying = false
			s.pend.mu.Unlock()
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(s.life, s.retryWait)
		err := s.write(ctx, func(*sql.Tx) error { return nil })
		cancel()
		s.pend.mu.Lock()
		if len(s.pend.evs) == 0 {
			s.pend.retrying = false
			s.pend.mu.Unlock()
			return
		}
		s.pend.mu.Unlock()
		if err != nil && !couldNotWait(err) {
			slog.Warn("store: writing pending world-log events failed; will retry", "path", s.path, "err", err, "in", delay)
		}
		delay = min(2*delay, s.retryMax)
	}
}

// stopRetry ends the retry goroutine and gives the events still waiting
// one last full wait for the lock; what is left then is lost, and said so.
func (s *Store) stopRetry() {
	s.pend.mu.Lock()
	s.pend.closed = true
	s.pend.mu.Unlock()
	s.cancel()
	s.pend.wg.Wait()
	if s.w == nil || s.Pending() == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.busyTimeout)
	defer cancel()
	if err := s.write(ctx, func(*sql.Tx) error { return nil }); err != nil {
		slog.Error("store: world-log events lost: the database stayed locked until Spirit closed it",
			"path", s.path, "lost", s.Pending(), "err", err)
	}
}
