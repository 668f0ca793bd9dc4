-- Pictures of merchants and products (issue 44; docs/operator-catalog.md, "Pictures").

-- Each owner's pictures in order, with their alternative texts and files' names and sizes
-- (`store::StoredImage`): every read of the owner has them without another query.
ALTER TABLE merchant ADD COLUMN images JSONB NOT NULL DEFAULT '[]';
ALTER TABLE product ADD COLUMN images JSONB NOT NULL DEFAULT '[]';

-- The encoded files, served at /images/{image_id}/{name} and never changed: a new upload is
-- a new picture.
CREATE TABLE image_file (
    image_id      UUID NOT NULL,
    name          TEXT NOT NULL,
    content_type  TEXT NOT NULL,
    etag          TEXT NOT NULL,
    bytes         BYTEA NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (image_id, name)
);
