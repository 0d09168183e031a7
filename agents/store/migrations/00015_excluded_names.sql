-- A switch to an excluded app was logged with the app's name as its
-- identifier and the rule that excluded it ("Bitwarden", "switched to an
-- excluded app (password manager)"), and what reads the log for a model
-- sent it on. An excluded app leaves no name anywhere (issue 27): the
-- lines already written are reworded as they are written now. This is
-- the one update the world log is ever given; it stays append-only.

-- +goose Up
DROP TRIGGER world_no_update;
UPDATE world SET identifier = 'excluded', text = 'switched to an excluded app: not looked at'
WHERE kind = 'event' AND source = 'screen' AND text LIKE 'switched to an excluded app%';
-- +goose StatementBegin
CREATE TRIGGER world_no_update BEFORE UPDATE ON world
BEGIN
    SELECT RAISE(ABORT, 'world log is append-only: rows cannot be updated');
END;
-- +goose StatementEnd

-- +goose Down
-- The names are gone; there is nothing to put back.
SELECT 1;
