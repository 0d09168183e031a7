-- +goose Up
-- World-log retention: the log stays append-only for every writer, except
-- CompactWorld, which deletes old entries only inside its own transaction
-- while it holds the one row of world_compacting. Anything else that tries
-- to delete a row is still refused by the trigger.
CREATE TABLE world_compacting (
    only INTEGER PRIMARY KEY NOT NULL CHECK (only = 1)
);

DROP TRIGGER world_no_delete;

-- +goose StatementBegin
CREATE TRIGGER world_no_delete BEFORE DELETE ON world
WHEN NOT EXISTS (SELECT 1 FROM world_compacting)
BEGIN
    SELECT RAISE(ABORT, 'world log is append-only: rows cannot be deleted');
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER world_no_delete;

-- +goose StatementBegin
CREATE TRIGGER world_no_delete BEFORE DELETE ON world
BEGIN
    SELECT RAISE(ABORT, 'world log is append-only: rows cannot be deleted');
END;
-- +goose StatementEnd

DROP TABLE world_compacting;
