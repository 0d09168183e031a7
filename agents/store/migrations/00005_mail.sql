-- The local mail index (agents/mail/index): the lawyer's mail accounts, the
-- messages their connectors delivered, the threads rebuilt from them, and a
-- full-text index for the glance's read-only tools.

-- +goose Up
CREATE TABLE mail_accounts (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    kind      TEXT    NOT NULL CHECK (kind IN ('imap', 'graph', 'gmail', 'mbox', 'maildir')),
    name      TEXT    NOT NULL DEFAULT '',
    address   TEXT    NOT NULL DEFAULT '',   -- the user's own address at this account, lower case
    aliases   TEXT    NOT NULL DEFAULT '[]'  -- the user's other addresses there, a JSON array
        CHECK (json_valid(aliases) AND json_type(aliases) = 'array'),
    config    TEXT    NOT NULL DEFAULT '{}'  -- connector settings; never passwords or tokens (those live in the keyring)
        CHECK (json_valid(config) AND json_type(config) = 'object'),
    cursor    TEXT    NOT NULL DEFAULT '',   -- the connector's opaque position after the last complete sync
    last_sync INTEGER,                       -- unix ms of the last complete sync
    created   INTEGER NOT NULL               -- unix ms
);

-- Thread ids are AUTOINCREMENT so that an id a tool handed to the analyst
-- never comes to mean another thread after a rebuild.
CREATE TABLE mail_threads (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id        INTEGER NOT NULL REFERENCES mail_accounts (id) ON DELETE CASCADE,
    root_key          TEXT    NOT NULL DEFAULT '',  -- Message-ID of the thread's root (or conv:<id>), informational
    subject           TEXT    NOT NULL DEFAULT '',  -- the first message's subject as sent
    subject_norm      TEXT    NOT NULL DEFAULT '',
    participants      TEXT    NOT NULL DEFAULT '[]', -- JSON [{name, email}] in order of appearance
    first_date        INTEGER NOT NULL DEFAULT 0,   -- unix ms
    latest_date       INTEGER NOT NULL DEFAULT 0,   -- unix ms of the newest message that is not a draft
    latest_id         INTEGER NOT NULL DEFAULT 0,   -- mail_messages.id of that message (kept by the index in the same transaction)
    latest_message_id TEXT    NOT NULL DEFAULT '',  -- its Message-ID
    message_count     INTEGER NOT NULL DEFAULT 0,
    draft_count       INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX mail_threads_account ON mail_threads (account_id, latest_date);

CREATE TABLE mail_messages (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id      INTEGER NOT NULL REFERENCES mail_accounts (id) ON DELETE CASCADE,
    remote_id       TEXT    NOT NULL CHECK (remote_id <> ''),
    folder          TEXT    NOT NULL DEFAULT '',
    message_id      TEXT    NOT NULL DEFAULT '',  -- "<abc@host>"
    in_reply_to     TEXT    NOT NULL DEFAULT '',
    refs            TEXT    NOT NULL DEFAULT '',  -- References, space-separated ("references" is an SQL keyword)
    conversation_id TEXT    NOT NULL DEFAULT '',
    thread_id       INTEGER REFERENCES mail_threads (id) ON DELETE SET NULL,
    subject         TEXT    NOT NULL DEFAULT '',
    subject_norm    TEXT    NOT NULL DEFAULT '',
    -- 1 when the message says it is a reply ("RE: …") but carries neither
    -- In-Reply-To, References nor a conversation id: only then may the
    -- index thread it by subject.
    subject_only    INTEGER NOT NULL DEFAULT 0 CHECK (subject_only IN (0, 1)),
    from_name       TEXT    NOT NULL DEFAULT '',
    from_email      TEXT    NOT NULL DEFAULT '',  -- lower case
    to_json         TEXT    NOT NULL DEFAULT '[]', -- JSON [{name, email}]
    cc_json         TEXT    NOT NULL DEFAULT '[]',
    date            INTEGER NOT NULL DEFAULT 0,   -- unix ms
    body            TEXT    NOT NULL DEFAULT '',  -- the message's own text (plain; HTML converted by the connector)
    quoted          BLOB,                         -- the history it quotes, raw DEFLATE-compressed; NULL if none
    headers         TEXT    NOT NULL DEFAULT '{}', -- bulk-mail headers, lower-case keys
    draft           INTEGER NOT NULL DEFAULT 0 CHECK (draft IN (0, 1)),
    UNIQUE (account_id, remote_id)
);
CREATE INDEX mail_messages_thread ON mail_messages (thread_id, date);
-- Subject search (exact and prefix) and subject threading.
CREATE INDEX mail_messages_subject ON mail_messages (subject_norm, date);
-- The few messages that may be threaded by subject, for new messages to find them.
CREATE INDEX mail_messages_subject_only ON mail_messages (account_id, subject_norm, date) WHERE subject_only = 1;

-- Threading keys: every Message-ID a message names (its own, In-Reply-To,
-- References) and its conversation id, as a 64-bit hash salted with the
-- account. Messages that share a key are in one thread.
CREATE TABLE mail_refs (
    key     INTEGER NOT NULL,
    message INTEGER NOT NULL REFERENCES mail_messages (id) ON DELETE CASCADE,
    PRIMARY KEY (key, message)
) WITHOUT ROWID;
CREATE INDEX mail_refs_message ON mail_refs (message);

-- Full-text index. Contentless (the text is in mail_messages) with
-- contentless_delete so rows can be removed. Only a reply's own text is
-- indexed, not the history it quotes, which would index every thread's
-- first message once per reply.
CREATE VIRTUAL TABLE mail_fts USING fts5 (
    subject, sender, recipients, body,
    content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2'
);
-- A subject or sender hit weighs more than one in the body.
INSERT INTO mail_fts (mail_fts, rank) VALUES ('rank', 'bm25(4.0, 2.0, 1.0, 1.0)');

-- Triggers keep mail_fts in step with mail_messages inside every write
-- transaction, including the cascade when an account is removed.
-- +goose StatementBegin
CREATE TRIGGER mail_messages_fts_insert AFTER INSERT ON mail_messages BEGIN
    INSERT INTO mail_fts (rowid, subject, sender, recipients, body) VALUES (
        new.id, new.subject, new.from_name || ' ' || new.from_email,
        (SELECT group_concat(coalesce(value ->> 'name', '') || ' ' || coalesce(value ->> 'email', ''), ' ')
            FROM (SELECT value FROM json_each(new.to_json) UNION ALL SELECT value FROM json_each(new.cc_json))),
        new.body);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER mail_messages_fts_update AFTER UPDATE OF subject, from_name, from_email, to_json, cc_json, body ON mail_messages BEGIN
    DELETE FROM mail_fts WHERE rowid = old.id;
    INSERT INTO mail_fts (rowid, subject, sender, recipients, body) VALUES (
        new.id, new.subject, new.from_name || ' ' || new.from_email,
        (SELECT group_concat(coalesce(value ->> 'name', '') || ' ' || coalesce(value ->> 'email', ''), ' ')
            FROM (SELECT value FROM json_each(new.to_json) UNION ALL SELECT value FROM json_each(new.cc_json))),
        new.body);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER mail_messages_fts_delete AFTER DELETE ON mail_messages BEGIN
    DELETE FROM mail_fts WHERE rowid = old.id;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER mail_messages_fts_delete;
DROP TRIGGER mail_messages_fts_update;
DROP TRIGGER mail_messages_fts_insert;
DROP TABLE mail_fts;
DROP INDEX mail_refs_message;
DROP TABLE mail_refs;
DROP INDEX mail_messages_subject_only;
DROP INDEX mail_messages_subject;
DROP INDEX mail_messages_thread;
DROP TABLE mail_messages;
DROP INDEX mail_threads_account;
DROP TABLE mail_threads;
DROP TABLE mail_accounts;
