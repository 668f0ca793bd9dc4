-- Every checkout line takes its capacity from a group, so the group is required. Lines from
-- before 0002 (none are known to exist) take their product's group. SQLite cannot make an
-- existing column NOT NULL, so triggers refuse a line without one.
UPDATE checkout_line SET availability_group_id = (
    SELECT product.availability_group_id FROM product WHERE product.product_id = checkout_line.product_id
) WHERE availability_group_id IS NULL;
CREATE TRIGGER checkout_line_group_required_insert BEFORE INSERT ON checkout_line
WHEN NEW.availability_group_id IS NULL
BEGIN
    SELECT RAISE(ABORT, 'NOT NULL constraint failed: checkout_line.availability_group_id');
END;
CREATE TRIGGER checkout_line_group_required_update BEFORE UPDATE OF availability_group_id ON checkout_line
WHEN NEW.availability_group_id IS NULL
BEGIN
    SELECT RAISE(ABORT, 'NOT NULL constraint failed: checkout_line.availability_group_id');
END;
