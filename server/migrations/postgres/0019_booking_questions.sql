-- Booking questions (issue 44; docs/operator-catalog.md, "Booking questions").

-- A product's questions (`wire::Question` JSON array); NULL: it asks none.
ALTER TABLE product ADD COLUMN questions JSONB;

-- A checkout's answers as given, each with its question's labels and whether it is personal
-- (`checkout::answers::StoredAnswer` JSON array); NULL: none given.
ALTER TABLE checkout ADD COLUMN answers JSONB;

-- A ticket's own answers (the per-ticket ones), copied to the ticket that replaces it when
-- its visit moves to another day; NULL: none.
ALTER TABLE ticket ADD COLUMN answers JSONB;
