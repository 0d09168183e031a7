-- Finding a thread by a message's Message-ID (an accepted glance nudge
-- names the message it was about).

-- +goose Up
CREATE INDEX mail_messages_message_id ON mail_messages (message_id) WHERE message_id <> '';

-- +goose Down
DROP INDEX mail_messages_message_id;
