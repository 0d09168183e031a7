package store

import (
	"context"
	"errors"
	"maps"
	"testing"
	"time"
)

func mustSet(t *testing.T, s *Store, kv map[string]string) {
	t.Helper()
	for k, v := range kv {
		if err := s.SetSetting(t.Context(), k, v); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAllSettings(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  map[string]string
		want map[string]string
	}{
		{"nothing stored", nil, map[string]string{}},
		{"one", map[string]string{"a": "1"}, map[string]string{"a": "1"}},
		{"several, empty value kept", map[string]string{"a": "1", "b": "", "voice.model": "base.en"},
			map[string]string{"a": "1", "b": "", "voice.model": "base.en"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := openTest(t)
			mustSet(t, s, tc.set)
			got, err := s.AllSettings(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAllSettingsReadOnly(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenDir(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	mustSet(t, s, map[string]string{"k": "v"})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err := OpenDirReadOnly(t.Context(), dir, ReadOnlyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	got, err := ro.AllSettings(t.Context())
	if want := map[string]string{"k": "v"}; err != nil || !maps.Equal(got, want) {
		t.Fatalf("got %v, %v; want %v", got, err, want)
	}
	err = ro.UpdateSettings(t.Context(), func(map[string]string) (map[string]string, error) {
		return map[string]string{"k": "w"}, nil
	})
	if !errors.Is(err, ErrReadOnly) {
		t.Fatalf("UpdateSettings on a read-only store: %v, want ErrReadOnly", err)
	}
}

func TestAllSettingsCancelled(t *testing.T) {
	s, _ := openTest(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := s.AllSettings(ctx); err == nil {
		t.Fatal("AllSettings with a cancelled context succeeded")
	}
}

func TestUpdateSettings(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		name       string
		before     map[string]string
		write      map[string]string
		fnErr      error
		wantStored map[string]string // what fn is given
		wantAfter  map[string]string
		wantErr    error
	}{
		{"nothing to write", map[string]string{"a": "1"}, nil, nil,
			map[string]string{"a": "1"}, map[string]string{"a": "1"}, nil},
		{"new and changed keys", map[string]string{"a": "1", "b": "2"}, map[string]string{"b": "3", "c": ""}, nil,
			map[string]string{"a": "1", "b": "2"}, map[string]string{"a": "1", "b": "3", "c": ""}, nil},
		{"fn fails: nothing written", map[string]string{"a": "1"}, map[string]string{"a": "2"}, boom,
			map[string]string{"a": "1"}, map[string]string{"a": "1"}, boom},
		{"empty key: nothing written", map[string]string{"a": "1"}, map[string]string{"a": "2", "": "x"}, nil,
			map[string]string{"a": "1"}, map[string]string{"a": "1"}, ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := openTest(t)
			ctx := t.Context()
			mustSet(t, s, tc.before)
			var stored map[string]string
			err := s.UpdateSettings(ctx, func(got map[string]string) (map[string]string, error) {
				stored = maps.Clone(got)
				return tc.write, tc.fnErr
			})
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if !maps.Equal(stored, tc.wantStored) {
				t.Errorf("fn was given %v, want %v", stored, tc.wantStored)
			}
			after, err := s.AllSettings(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(after, tc.wantAfter) {
				t.Errorf("stored after: %v, want %v", after, tc.wantAfter)
			}
		})
	}
}

func TestUpdateSettingsStampsUpdated(t *testing.T) {
	s, c := openTest(t)
	ctx := t.Context()
	mustSet(t, s, map[string]string{"a": "1", "b": "1"})
	c.Advance(time.Minute)
	if err := s.UpdateSettings(ctx, func(map[string]string) (map[string]string, error) {
		return map[string]string{"b": "2"}, nil
	}); err != nil {
		t.Fatal(err)
	}
	updated := map[string]int64{}
	rows, err := s.Reader().QueryContext(ctx, `SELECT key, updated FROM settings`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var ms int64
		if err := rows.Scan(&k, &ms); err != nil {
			t.Fatal(err)
		}
		updated[k] = ms
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if got, want := updated["b"]-updated["a"], time.Minute.Milliseconds(); got != want {
		t.Fatalf("b updated %d ms after a, want %d (only the written key is stamped)", got, want)
	}
}
