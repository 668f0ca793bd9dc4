//! Generated catalog data, written through the server's own store (so it obeys every rule the
//! operator API does): `n` merchants with one product each for search, and one merchant with a
//! realistic product list (shared capacity, discounts, a timeslotted product, a voucher) for
//! the product list and calendar.

use anyhow::Context;
use app::wire::Locale;
use chrono::{Days, NaiveTime, Utc};
use rand::{rngs::StdRng, Rng, SeedableRng};
use rust_decimal::Decimal;
use server::{
    store::{
        Address, AvailabilityGroupInput, CalendarInput, CampaignInput, ClientSecrets, Location,
        MerchantInput, MerchantTranslation, NewTimeslot, PartnerClientInput, ProductInput, Store,
    },
    time::{local_date, local_to_utc},
};
use uuid::Uuid;

pub const CLIENT_ID: &str = "bench-partner";
pub const CLIENT_SECRET: &str = "bench-secret-not-for-production";

const ADJECTIVES: [&str; 20] = [
    "Groene",
    "Oude",
    "Nieuwe",
    "Grote",
    "Kleine",
    "Blauwe",
    "Rode",
    "Gouden",
    "Zilveren",
    "Witte",
    "Zwarte",
    "Hoge",
    "Lange",
    "Stille",
    "Vrolijke",
    "Koninklijke",
    "Historische",
    "Moderne",
    "Wilde",
    "Zonnige",
];
const NOUNS: [&str; 30] = [
    "Molen",
    "Haven",
    "Toren",
    "Tuin",
    "Brug",
    "Kasteel",
    "Poort",
    "Markt",
    "Dijk",
    "Bos",
    "Hoeve",
    "Kade",
    "Gracht",
    "Sluis",
    "Vesting",
    "Abdij",
    "Werf",
    "Duin",
    "Polder",
    "Plein",
    "Zaal",
    "Theater",
    "Café",
    "Brouwerij",
    "Galerie",
    "Kerk",
    "Kapel",
    "Schouwburg",
    "Bioscoop",
    "Paviljoen",
];
const KINDS: [&str; 12] = [
    "Museum",
    "Dierentuin",
    "Pretpark",
    "Speeltuin",
    "Zwembad",
    "Escape Room",
    "Bowling",
    "Aquarium",
    "Planetarium",
    "Rondvaart",
    "Sauna",
    "Klimhal",
];
/// Cities with their centres; merchants are scattered a few kilometres around them.
const CITIES: [(&str, f64, f64); 24] = [
    ("Amsterdam", 52.370, 4.895),
    ("Rotterdam", 51.922, 4.479),
    ("Den Haag", 52.078, 4.288),
    ("Utrecht", 52.091, 5.122),
    ("Eindhoven", 51.441, 5.478),
    ("Groningen", 53.219, 6.566),
    ("Tilburg", 51.560, 5.091),
    ("Breda", 51.589, 4.776),
    ("Nijmegen", 51.842, 5.853),
    ("Haarlem", 52.387, 4.646),
    ("Arnhem", 51.985, 5.899),
    ("Enschede", 52.221, 6.893),
    ("'s-Hertogenbosch", 51.697, 5.304),
    ("Maastricht", 50.851, 5.691),
    ("Leiden", 52.160, 4.497),
    ("Zwolle", 52.517, 6.083),
    ("Delft", 52.012, 4.357),
    ("Antwerpen", 51.219, 4.402),
    ("Gent", 51.054, 3.717),
    ("Brugge", 51.209, 3.225),
    ("Liège", 50.633, 5.567),
    ("Köln", 50.938, 6.960),
    ("Düsseldorf", 51.228, 6.774),
    ("Münster", 51.961, 7.626),
];
const PRODUCT_TITLES: [&str; 6] = [
    "Entree volwassene",
    "Entree kind",
    "Rondleiding",
    "Familieticket",
    "Jaarkaart",
    "Combiticket",
];

/// What the benchmark needs to know about the generated data.
#[derive(Debug, Clone)]
pub struct Seeded {
    pub campaign_id: Uuid,
    /// The merchant with the realistic product list.
    pub list_merchant: Uuid,
    /// A date-based product of that merchant, for the calendar.
    pub calendar_product: Uuid,
    /// Its timeslotted tour (seven slots a day), for the timeslots.
    pub tour_product: Uuid,
    pub merchants: usize,
}

fn money(cents: i64) -> Decimal {
    Decimal::new(cents, 2)
}

fn merchant_input(name: String, city: &str, category: &str, at: (f64, f64)) -> MerchantInput {
    MerchantInput {
        name,
        description: format!("{category} in {city}"),
        category: category.to_owned(),
        address: Address {
            street: "Hoofdstraat 1".to_owned(),
            postal_code: "1000 AA".to_owned(),
            city: city.to_owned(),
            country: "NL".to_owned(),
        },
        location: Location {
            latitude: at.0,
            longitude: at.1,
        },
        timezone: "Europe/Amsterdam".to_owned(),
        currency: "EUR".to_owned(),
        image_url: Some("https://img.example/merchant.jpg".to_owned()),
        website: Some("https://merchant.example".to_owned()),
        translations: Vec::new(),
        // Settled as a real merchant is (docs/settlement.md): every sale books its split.
        tax: Some(app::wire::TaxSettings {
            prices_include_tax: true,
            rates: vec![app::wire::TaxRate {
                name: "VAT 9%".to_owned(),
                rate_percent: Decimal::new(9, 0),
                product_ids: None,
            }],
        }),
        legal_name: None,
        vat_id: None,
        legal_address: None,
        platform_fee: Some(app::wire::Charge::Percent(Decimal::new(3, 0))),
    }
}

fn product_input(merchant_id: Uuid, campaign_id: Uuid, title: &str, cents: i64) -> ProductInput {
    ProductInput {
        merchant_id,
        availability_group_id: None,
        title: title.to_owned(),
        product_type: "TICKET".to_owned(),
        physical_product: false,
        sku: format!("SKU-{}", Uuid::new_v4().simple()),
        age_group: Some("adult".to_owned()),
        unit_price: money(cents),
        list_price: money(cents + 250),
        booking_costs: money(50),
        visit_guarantee_cost: money(200),
        no_date: false,
        requires_timeslot: false,
        conditions: "Geldig op de gekozen dag. Niet restitueerbaar.".to_owned(),
        ticket_validity_type: None,
        ticket_validity_date: None,
        provider: "inventory".to_owned(),
        campaign_ids: vec![campaign_id],
        translations: Vec::new(),
        // Cancellable and movable until a day before: what the after-sale runs measure.
        after_sale: Some(app::wire::AfterSalePolicy {
            refund_rules: vec![app::wire::RefundRule {
                until: "PT24H".to_owned(),
                refund_percent: Decimal::ONE_HUNDRED,
                fee: None,
                keep_fees: false,
            }],
            rebook_until: Some("PT24H".to_owned()),
            withdrawal_days: None,
        }),
        commission: None,
        questions: None,
    }
}

/// The benchmark campaign and its partner client (which may return customers to any
/// `http://localhost` port).
async fn campaign_and_partner(store: &dyn Store) -> anyhow::Result<Uuid> {
    let campaign_id = Uuid::new_v4();
    store
        .create_campaign(
            campaign_id,
            &CampaignInput {
                name: "Benchmark".to_owned(),
                loyalty_points_per_unit: Decimal::ONE,
                commission: Some(app::wire::Charge::Percent(Decimal::TEN)),
            },
        )
        .await?;
    store
        .upsert_partner_client(
            CLIENT_ID,
            &PartnerClientInput {
                name: "Benchmark partner".to_owned(),
                client_id: None,
                campaign_ids: vec![campaign_id],
                frame_origins: vec!["http://localhost:*".to_owned()],
                return_origins: vec!["http://localhost:*".to_owned()],
                webhook_url: None,
                hold_limits: None,
                theme: None,
                settlement: Default::default(),
            },
            &ClientSecrets {
                secret_hash: server::secrets::hash_secret(CLIENT_SECRET),
                webhook_secret: server::secrets::new_webhook_secret(),
            },
        )
        .await?;
    Ok(campaign_id)
}

/// Writes the campaign, the partner client, `n` search merchants and the product-list merchant.
pub async fn seed(store: &dyn Store, n: usize) -> anyhow::Result<Seeded> {
    let campaign_id = campaign_and_partner(store).await?;
    let mut rng = StdRng::seed_from_u64(42);
    let started = std::time::Instant::now();
    for i in 0..n {
        let kind = KINDS[rng.gen_range(0..KINDS.len())];
        let name = format!(
            "{} {} {}",
            ADJECTIVES[rng.gen_range(0..ADJECTIVES.len())],
            NOUNS[rng.gen_range(0..NOUNS.len())],
            kind
        );
        let (city, lat, lon) = CITIES[rng.gen_range(0..CITIES.len())];
        let at = (
            lat + rng.gen_range(-0.05..0.05),
            lon + rng.gen_range(-0.08..0.08),
        );
        let mut input = merchant_input(name.clone(), city, kind, at);
        if i % 4 == 0 {
            input.translations.push(MerchantTranslation {
                locale: Locale::EnGb,
                name: format!("{name} (EN)"),
                description: format!("{kind} in {city}"),
            });
        }
        let merchant = store.create_merchant(Uuid::new_v4(), &input).await?;
        let title = PRODUCT_TITLES[rng.gen_range(0..PRODUCT_TITLES.len())];
        store
            .create_product(
                Uuid::new_v4(),
                &product_input(
                    merchant.merchant_id,
                    campaign_id,
                    title,
                    rng.gen_range(500..3000),
                ),
            )
            .await?;
        if (i + 1) % 10_000 == 0 {
            eprintln!(
                "  seeded {} merchants in {:.0} s",
                i + 1,
                started.elapsed().as_secs_f64()
            );
        }
    }
    let (list_merchant, calendar_product, tour_product) = list_merchant(store, campaign_id).await?;
    Ok(Seeded {
        campaign_id,
        list_merchant,
        calendar_product,
        tour_product,
        merchants: n + 1,
    })
}

/// A zoo with eight products: adult and child on one shared gate, a discounted family ticket,
/// a timeslotted tour, an evening event with a small capacity, a no_date voucher, a physical
/// guide book and an annual pass; calendars for 90 days.
async fn list_merchant(store: &dyn Store, campaign_id: Uuid) -> anyhow::Result<(Uuid, Uuid, Uuid)> {
    let mut input = merchant_input(
        "Bench Zoo".to_owned(),
        "Amsterdam",
        "Dierentuin",
        (52.366, 4.917),
    );
    input.translations.push(MerchantTranslation {
        locale: Locale::EnGb,
        name: "Bench Zoo".to_owned(),
        description: "The zoo".to_owned(),
    });
    let merchant = store.create_merchant(Uuid::new_v4(), &input).await?;
    let merchant_id = merchant.merchant_id;
    let zone: chrono_tz::Tz = merchant.timezone.parse()?;
    let today = local_date(zone, Utc::now());
    let until = today + Days::new(89);
    let gate = Uuid::new_v4();
    store
        .create_availability_group(
            gate,
            &AvailabilityGroupInput {
                merchant_id,
                name: "Main gate".to_owned(),
            },
        )
        .await?;

    let product = |title: &str, cents: i64| product_input(merchant_id, campaign_id, title, cents);
    let mut adult = product("Volwassene", 2450);
    adult.availability_group_id = Some(gate);
    let mut child = product("Kind (3-12)", 1750);
    child.availability_group_id = Some(gate);
    child.age_group = Some("child".to_owned());
    let family = product("Familieticket", 7900);
    let mut tour = product("Rondleiding achter de schermen", 1500);
    tour.requires_timeslot = true;
    let evening = product("Avondopenstelling", 1950);
    let mut voucher = product("Cadeaubon", 2500);
    voucher.no_date = true;
    voucher.list_price = voucher.unit_price;
    let mut book = product("Gids", 1295);
    book.product_type = "MERCHANDISE".to_owned();
    book.age_group = None;
    book.physical_product = true;
    book.no_date = true;
    let mut pass = product("Jaarkaart", 8900);
    pass.ticket_validity_type = Some("VALIDITY_PERIOD".to_owned());
    pass.ticket_validity_date = Some(today + Days::new(365));
    pass.no_date = true;

    let mut ids = Vec::new();
    for input in [
        &adult, &child, &family, &tour, &evening, &voucher, &book, &pass,
    ] {
        ids.push(store.create_product(Uuid::new_v4(), input).await?);
    }
    let calendar = |price: i64, list: i64, capacity: Option<i32>| CalendarInput {
        from: today,
        until,
        price: money(price),
        list_price: money(list),
        capacity,
    };
    let written = [
        (0, calendar(2450, 2700, Some(2000))),
        (1, calendar(1750, 1950, Some(2000))),
        (2, calendar(6900, 7900, None)),
        (3, calendar(1500, 1500, Some(100))),
        (4, calendar(1950, 1950, Some(40))),
    ];
    for (i, input) in written {
        store
            .write_calendar(ids[i].product_id, &input)
            .await?
            .context("the product exists")?;
    }
    let mut slots = Vec::new();
    for offset in 0..90 {
        let day = today + Days::new(offset);
        for hour in 10..17 {
            let start = NaiveTime::from_hms_opt(hour, 0, 0).expect("valid time");
            let end = NaiveTime::from_hms_opt(hour, 45, 0).expect("valid time");
            if let (Some(start_time), Some(end_time)) =
                (local_to_utc(zone, day, start), local_to_utc(zone, day, end))
            {
                slots.push(NewTimeslot {
                    day,
                    start_time,
                    end_time,
                });
            }
        }
    }
    store
        .write_timeslots(ids[3].availability_group_id, &slots, Some(12))
        .await?;
    Ok((merchant_id, ids[0].product_id, ids[3].product_id))
}

/// A museum to check out in: one ticket whose days have room for every request of the
/// throughput runs, and an evening with `seats` places a day for the contention runs. Each
/// product has its own capacity; the calendars cover the next 30 days.
#[derive(Debug, Clone)]
pub struct Shop {
    pub campaign_id: Uuid,
    pub merchant_id: Uuid,
    pub merchant_zone: chrono_tz::Tz,
    pub ticket: Uuid,
    pub evening: Uuid,
    pub evening_group: Uuid,
}

/// Makes `day` of `product` (the shop's evening, 19.50) cost 21.50, with `seats` places.
pub async fn dearer_day(
    store: &dyn Store,
    product: Uuid,
    day: chrono::NaiveDate,
    seats: i32,
) -> anyhow::Result<()> {
    store
        .write_calendar(
            product,
            &CalendarInput {
                from: day,
                until: day,
                price: money(2150),
                list_price: money(2400),
                capacity: Some(seats),
            },
        )
        .await?
        .context("the product exists")?;
    Ok(())
}

pub async fn shop(store: &dyn Store, seats: i32) -> anyhow::Result<Shop> {
    let campaign_id = campaign_and_partner(store).await?;
    let merchant = store
        .create_merchant(
            Uuid::new_v4(),
            &merchant_input(
                "Bench Museum".to_owned(),
                "Amsterdam",
                "Museum",
                (52.360, 4.885),
            ),
        )
        .await?;
    let zone: chrono_tz::Tz = merchant.timezone.parse()?;
    let today = local_date(zone, Utc::now());
    let mut written = Vec::new();
    for (title, cents, capacity) in [("Entree", 2250, 10_000_000), ("Avond", 1950, seats)] {
        let product = store
            .create_product(
                Uuid::new_v4(),
                &product_input(merchant.merchant_id, campaign_id, title, cents),
            )
            .await?;
        store
            .write_calendar(
                product.product_id,
                &CalendarInput {
                    from: today,
                    until: today + Days::new(30),
                    price: money(cents),
                    list_price: money(cents + 250),
                    capacity: Some(capacity),
                },
            )
            .await?
            .context("the product exists")?;
        written.push(product);
    }
    Ok(Shop {
        campaign_id,
        merchant_id: merchant.merchant_id,
        merchant_zone: zone,
        ticket: written[0].product_id,
        evening: written[1].product_id,
        evening_group: written[1].availability_group_id,
    })
}
