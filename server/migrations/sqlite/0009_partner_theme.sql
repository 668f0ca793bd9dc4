-- A partner's look in the hosted frame (docs/webframe.md, "Your look"): colours, corner radius,
-- font stack and colour scheme as one JSON document, checked by the operator API when saved;
-- NULL keeps the frame's own look.
ALTER TABLE partner_client ADD COLUMN theme TEXT;
