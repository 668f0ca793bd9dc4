-- One outbox for every mail (docs/operating.md, "Background workers"): the onboarding magic
-- links (table `mail`, one synchronous SMTP attempt) and the ticket mails (table `ticket_mail`,
-- a leased worker) become the rows of one table, claimed and sent by one worker
-- (server/src/mail/outbox.rs) under the lease webhook deliveries use.
--
-- A row is written in the transaction that causes it (the payment, a resend, the merchant
-- account). A kind rendered when it is sent (the tickets, from the order) holds only what it is
-- about (`customer_order_id`); a kind whose content cannot be made again (the magic link: only
-- its code's hash is kept) holds `recipient`, `subject` and `body_text`, and in `secret` the
-- part of the body that is removed once the mail is sent.
--
-- `kind` is `MailKind` (server/src/mail/kind.rs) and has no CHECK: a new kind is a variant and
-- its renderer, not a table rebuild; the worker claims only the kinds its build knows.
ALTER TABLE mail RENAME TO mail_before_0012;

CREATE TABLE mail (
    mail_id               BLOB PRIMARY KEY,
    kind                  TEXT NOT NULL,
    customer_order_id     BLOB REFERENCES customer_order,
    merchant_account_id   BLOB REFERENCES merchant_account,
    recipient             TEXT,
    subject               TEXT,
    body_text             TEXT,
    secret                TEXT,
    status                TEXT NOT NULL CHECK (status IN ('PENDING', 'SENT', 'FAILED')),
    attempts              INTEGER NOT NULL DEFAULT 0,
    next_attempt_at       TEXT NOT NULL,
    locked_until          TEXT,
    claim_id              BLOB,
    last_error            TEXT,
    created_at            TEXT NOT NULL,
    sent_at               TEXT
);
-- Exactly one mail of the payment per order, whatever retries, nodes or crashes do.
CREATE UNIQUE INDEX mail_tickets_once ON mail (customer_order_id) WHERE kind = 'TICKETS';
CREATE INDEX mail_due ON mail (status, next_attempt_at);
CREATE INDEX mail_order ON mail (customer_order_id, created_at);
CREATE INDEX mail_newest ON mail (created_at, mail_id);

-- The ticket mails as they were, lease and all: a mail an old worker holds is not taken by a
-- new one before its lease ends.
INSERT INTO mail (mail_id, kind, customer_order_id, status, attempts, next_attempt_at,
                  locked_until, claim_id, last_error, created_at, sent_at)
SELECT ticket_mail_id,
       CASE kind WHEN 'FIRST' THEN 'TICKETS' WHEN 'RESEND' THEN 'TICKETS_RESEND'
                 ELSE 'TICKETS_OPERATOR' END,
       customer_order_id, status, attempts, next_attempt_at, locked_until, claim_id,
       last_error, created_at, sent_at
FROM ticket_mail;

-- The magic links: OUTBOX (never tried: no SMTP) becomes PENDING, sent once SMTP is set;
-- SENT stays, its link already removed; FAILED (one attempt, never retried) stays FAILED, so
-- nothing is sent that was not before. The secret of an unsent link is the body's last line,
-- after "… for 7 days.\n\n" (the text `onboarding.rs` wrote); the account is the newest one of
-- the address made before the mail, as `provision` wrote the two one after the other.
INSERT INTO mail (mail_id, kind, merchant_account_id, recipient, subject, body_text, secret,
                  status, attempts, next_attempt_at, last_error, created_at, sent_at)
SELECT m.mail_id, 'MAGIC_LINK',
       (SELECT a.merchant_account_id FROM merchant_account a
        WHERE a.email = m.recipient AND a.created_at <= m.created_at
        ORDER BY a.created_at DESC LIMIT 1),
       m.recipient, m.subject, m.body_text,
       CASE WHEN m.status <> 'SENT' AND instr(m.body_text, 'days.' || char(10) || char(10)) > 0
            THEN rtrim(substr(m.body_text,
                              instr(m.body_text, 'days.' || char(10) || char(10)) + 7), char(10))
       END,
       CASE m.status WHEN 'OUTBOX' THEN 'PENDING' ELSE m.status END,
       CASE m.status WHEN 'OUTBOX' THEN 0 ELSE 1 END,
       m.created_at,
       CASE m.status WHEN 'FAILED' THEN 'SMTP refused it (its one attempt, before migration 0012)' END,
       m.created_at, m.sent_at
FROM mail_before_0012 m;

DROP TABLE mail_before_0012;
DROP TABLE ticket_mail;
