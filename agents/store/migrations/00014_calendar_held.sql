-- Calendars that stop Spirit (issue 27 §3): a calendar is outside input,
-- and one whose reading ended the whole program (a crash, the system's
-- out-of-memory killer) would end it again at every start. sync_started
-- is set when a sync of the calendar begins and cleared when it ends; one
-- still set at the next start marks a sync that never ended, and the
-- calendar is then held: not read by the five-minute round until the
-- lawyer asks for it.

-- +goose Up
ALTER TABLE calendars ADD COLUMN sync_started INTEGER;
ALTER TABLE calendars ADD COLUMN held INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE calendars DROP COLUMN held;
ALTER TABLE calendars DROP COLUMN sync_started;
