-- Every checkout line takes its capacity from a group, so the group is required. Lines from
-- before 0002 (none are known to exist) take their product's group.
UPDATE checkout_line SET availability_group_id = (
    SELECT product.availability_group_id FROM product WHERE product.product_id = checkout_line.product_id
) WHERE availability_group_id IS NULL;
ALTER TABLE checkout_line ALTER COLUMN availability_group_id SET NOT NULL;
