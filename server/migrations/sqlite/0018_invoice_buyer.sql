-- A business buyer (issue 43; docs/settlement.md, "Invoices for business buyers"): its
-- company name and VAT id (`wire::Buyer` JSON), given at the reservation or the
-- confirmation; NULL: a consumer, whose order has no EN 16931 invoice.
ALTER TABLE checkout ADD COLUMN buyer TEXT;
