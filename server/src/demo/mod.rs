//! Demo data: in demo mode (`BOXOFFICE_DEMO=1`, off by default), on an empty database, the
//! server seeds a catalog
//! that covers every product shape, so the service can be tried at once. The ids are fixed, so
//! docs can name them, and two nodes seeding at once collide on the first insert instead of
//! seeding twice.

pub mod mail;
mod pictures;
pub mod shop;

use std::fmt;

use anyhow::Context;
use chrono::{Datelike, Duration, NaiveDate, NaiveTime, Utc};
use secrecy::ExposeSecret;
use serde_json::json;
use uuid::{uuid, Uuid};

use crate::{
    admin::timeslots::expand,
    secrets,
    state::AppState,
    store::{
        CalendarInput, CampaignInput, ClientSecrets, MerchantInput, PartnerClientInput,
        ProductInput, StoreError, VoucherInput,
    },
    time::local_date,
};

pub const DEMO_CAMPAIGN: Uuid = uuid!("d3e0ca11-0000-4000-8000-000000000001");
pub const SECOND_CAMPAIGN: Uuid = uuid!("d3e0ca11-0000-4000-8000-000000000002");
pub const DEMO_CLIENT_ID: &str = "demo-partner";
/// Days of calendar the demo opens, from today.
const DAYS: i64 = 120;

/// What the demo made, for the start-up banner.
#[derive(Debug, Clone)]
pub struct DemoSummary {
    pub campaign_id: Uuid,
    pub second_campaign_id: Uuid,
    pub client_id: String,
    pub client_secret: String,
    pub base_url: String,
}

impl fmt::Display for DemoSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Boxoffice demo data")?;
        writeln!(f, "  campaign id (x-campaign-id): {}", self.campaign_id)?;
        writeln!(
            f,
            "  second campaign id:          {}",
            self.second_campaign_id
        )?;
        writeln!(f, "  partner client_id:           {}", self.client_id)?;
        writeln!(f, "  partner client_secret:       {}", self.client_secret)?;
        writeln!(
            f,
            "  token endpoint:              {}/oauth/token",
            self.base_url
        )?;
        writeln!(f, "  frame_url:                   {}/frame", self.base_url)?;
        write!(
            f,
            "  try it (a partner's page):   {}/demo/shop",
            self.base_url
        )
    }
}

/// What the server does about the demo as it starts: nothing outside demo mode (no data, no
/// banner, so no secret reaches its output); in demo mode it seeds an empty database and
/// returns the banner to print, also when the demo was seeded on an earlier start.
pub async fn at_start(state: &AppState) -> anyhow::Result<Option<DemoSummary>> {
    if !state.config.demo {
        return Ok(None);
    }
    if let Some(seeded) = seed_if_empty(state).await? {
        return Ok(Some(seeded));
    }
    let seeded_before = state.store.campaign(DEMO_CAMPAIGN).await?.is_some();
    Ok(seeded_before.then(|| summary(state)))
}

/// Seeds the demo when the database has no campaign yet; `None` when there was data already.
pub async fn seed_if_empty(state: &AppState) -> anyhow::Result<Option<DemoSummary>> {
    if !state.store.list_campaigns(None, 1).await?.is_empty() {
        return Ok(None);
    }
    let campaign = CampaignInput {
        name: "Boxoffice Demo".into(),
        loyalty_points_per_unit: "1".parse()?,
        commission: Some(app::wire::Charge::Percent("10".parse()?)),
    };
    match state.store.create_campaign(DEMO_CAMPAIGN, &campaign).await {
        Ok(_) => {}
        // Another node got there first: it seeds, we do not.
        Err(StoreError::Conflict(_)) => return Ok(None),
        Err(err) => return Err(err.into()),
    }
    seed(state).await.context("seeding the demo data")?;
    Ok(Some(summary(state)))
}

/// The banner values of the seeded demo (also used when it was seeded on an earlier start).
pub fn summary(state: &AppState) -> DemoSummary {
    DemoSummary {
        campaign_id: DEMO_CAMPAIGN,
        second_campaign_id: SECOND_CAMPAIGN,
        client_id: DEMO_CLIENT_ID.into(),
        client_secret: state.config.demo_client_secret.expose_secret().to_owned(),
        base_url: state.config.base_url(),
    }
}

async fn seed(state: &AppState) -> anyhow::Result<()> {
    let store = &state.store;
    store
        .create_campaign(
            SECOND_CAMPAIGN,
            &CampaignInput {
                name: "Winter Lights".into(),
                loyalty_points_per_unit: "2".parse()?,
                commission: Some(app::wire::Charge::Percent("8".parse()?)),
            },
        )
        .await?;

    let own_origin = state.config.public_url.origin().ascii_serialization();
    let origins = vec![
        own_origin,
        "http://localhost:*".to_owned(),
        "http://127.0.0.1:*".to_owned(),
    ];
    let demo_client = PartnerClientInput {
        name: "Demo partner".into(),
        client_id: None,
        campaign_ids: vec![DEMO_CAMPAIGN, SECOND_CAMPAIGN],
        frame_origins: origins.clone(),
        return_origins: origins,
        webhook_url: None,
        hold_limits: None,
        theme: None,
        // A reseller may try OCTO against the demo end to end (docs/octo.md); the frame's
        // customers still pay at the payment page.
        settlement: crate::store::Settlement::OnAccount,
    };
    let demo_secrets = ClientSecrets {
        secret_hash: secrets::hash_secret(state.config.demo_client_secret.expose_secret()),
        webhook_secret: secrets::new_webhook_secret(),
    };
    store
        .upsert_partner_client(DEMO_CLIENT_ID, &demo_client, &demo_secrets)
        .await?;

    let museum = merchant(state, uuid!("d3e0e7c1-0000-4000-8000-000000000001"), json!({
        "name": "Museum aan de Gracht", "category": "museum", "timezone": "Europe/Amsterdam", "currency": "EUR",
        "description": "Dutch masters and modern design in a canal house.",
        "address": { "street": "Herengracht 502", "postal_code": "1017 CB", "city": "Amsterdam", "country": "NL" },
        "location": { "latitude": 52.3637, "longitude": 4.8936 },
        "website": "https://museum.example",
        "translations": [
            { "locale": "en-GB", "name": "Canal House Museum", "description": "Dutch masters and modern design in a canal house." },
            { "locale": "de-DE", "name": "Grachtenhausmuseum", "description": "Niederländische Meister und modernes Design in einem Grachtenhaus." },
            { "locale": "fr-FR", "name": "Musée du Canal", "description": "Maîtres hollandais et design moderne dans une maison de canal." }
        ]
    })).await?;
    let zoo = merchant(state, uuid!("d3e0e7c1-0000-4000-8000-000000000002"), json!({
        "name": "Dierenpark De Zonnebloem", "category": "zoo", "timezone": "Europe/Amsterdam", "currency": "EUR",
        "description": "Olifanten, giraffen en een vlindertuin.",
        "address": { "street": "Dierenparklaan 1", "postal_code": "3818 KM", "city": "Amersfoort", "country": "NL" },
        "location": { "latitude": 52.1476, "longitude": 5.3578 },
        "translations": [
            { "locale": "en-GB", "name": "Sunflower Zoo", "description": "Elephants, giraffes and a butterfly garden." },
            { "locale": "de-DE", "name": "Tierpark Sonnenblume", "description": "Elefanten, Giraffen und ein Schmetterlingsgarten." },
            { "locale": "fr-FR", "name": "Parc zoologique Le Tournesol", "description": "Éléphants, girafes et un jardin aux papillons." }
        ]
    })).await?;
    let park = merchant(state, uuid!("d3e0e7c1-0000-4000-8000-000000000003"), json!({
        "name": "Speelpark Avontuur", "category": "park", "timezone": "Europe/Amsterdam", "currency": "EUR",
        "description": "Achtbanen, waterglijbanen en een zomerfestival.",
        "address": { "street": "Parkweg 10", "postal_code": "5171 RA", "city": "Kaatsheuvel", "country": "NL" },
        "location": { "latitude": 51.6506, "longitude": 5.0436 },
        "translations": [
            { "locale": "en-GB", "name": "Adventure Park", "description": "Roller coasters, water slides and a summer festival." },
            { "locale": "de-DE", "name": "Abenteuerpark", "description": "Achterbahnen, Wasserrutschen und ein Sommerfestival." },
            { "locale": "fr-FR", "name": "Parc Aventure", "description": "Montagnes russes, toboggans aquatiques et un festival d’été." }
        ]
    })).await?;
    // Outside the demo campaign: only in the second one.
    let lights = merchant(state, uuid!("d3e0e7c1-0000-4000-8000-000000000004"), json!({
        "name": "Lichtfestival Noord", "category": "event", "timezone": "Europe/Amsterdam", "currency": "EUR",
        "address": { "street": "NDSM-plein 1", "postal_code": "1033 WB", "city": "Amsterdam", "country": "NL" },
        "description": "Een lichtroute langs kunstwerken aan het IJ.",
        "location": { "latitude": 52.4010, "longitude": 4.8925 },
        "translations": [
            { "locale": "en-GB", "name": "Light Festival North", "description": "A route of light art along the IJ." },
            { "locale": "de-DE", "name": "Lichtfestival Nord", "description": "Eine Route mit Lichtkunst am IJ." },
            { "locale": "fr-FR", "name": "Festival des lumières Nord", "description": "Un parcours d’art lumineux au bord de l’IJ." }
        ]
    })).await?;

    let demo = [DEMO_CAMPAIGN];
    // Adult and child entry share one gate: one availability group, 150 places a day.
    let adult = product(state, museum, &demo, json!({
        "title": "Toegang volwassene", "product_type": "TICKET", "sku": "MUS-ADULT", "age_group": "adult",
        "unit_price": "22.50", "list_price": "22.50", "booking_costs": "1.00", "visit_guarantee_cost": "2.50",
        "conditions": "Geldig op de gekozen dag.",
        "after_sale": museum_policy(),
        "translations": [
            { "locale": "en-GB", "title": "Adult admission", "conditions": "Valid on the chosen day." },
            { "locale": "de-DE", "title": "Eintritt Erwachsene", "conditions": "Gültig am gewählten Tag." },
            { "locale": "fr-FR", "title": "Entrée adulte", "conditions": "Valable le jour choisi." }
        ]
    })).await?;
    let child = product(state, museum, &demo, json!({
        "title": "Toegang kind (4-17)", "product_type": "TICKET", "sku": "MUS-CHILD", "age_group": "child",
        "availability_group_id": adult.1,
        "unit_price": "11.00", "list_price": "11.00", "booking_costs": "1.00", "visit_guarantee_cost": "2.50",
        "after_sale": museum_policy(),
        "translations": [
            { "locale": "en-GB", "title": "Child admission (4-17)" },
            { "locale": "de-DE", "title": "Eintritt Kind (4–17)" },
            { "locale": "fr-FR", "title": "Entrée enfant (4-17 ans)" }
        ]
    })).await?;
    // Discounted on weekdays.
    for (ticket, prices) in [
        (adult.0, weekdays_for("17.50", "22.50")),
        (child.0, weekdays_for("8.50", "11.00")),
    ] {
        calendar(state, museum, ticket, prices, Some(150)).await?;
    }
    product(state, museum, &demo, json!({
        "title": "Museumgids (boek)", "product_type": "MERCHANDISE", "sku": "MUS-GUIDE", "physical_product": true,
        "no_date": true, "unit_price": "12.95", "list_price": "12.95",
        "translations": [
            { "locale": "en-GB", "title": "Museum guide (book)" },
            { "locale": "de-DE", "title": "Museumsführer (Buch)" },
            { "locale": "fr-FR", "title": "Guide du musée (livre)" }
        ]
    })).await?;

    let entry = product(state, zoo, &demo, json!({
        "title": "Dagkaart met tijdslot", "product_type": "TICKET", "sku": "ZOO-SLOT", "age_group": "adult",
        "requires_timeslot": true, "unit_price": "24.00", "list_price": "26.00", "booking_costs": "0.75",
        // Free cancellation until the day before (a euro kept), another time until 2 h before.
        "after_sale": {
            "refund_rules": [{ "until": "P1D", "refund_percent": "100",
                               "fee": { "value": "1.00", "currency": "EUR" } }],
            "rebook_until": "PT2H"
        },
        "translations": [
            { "locale": "en-GB", "title": "Day ticket with entry time" },
            { "locale": "de-DE", "title": "Tageskarte mit Einlasszeit" },
            { "locale": "fr-FR", "title": "Billet journée avec heure d’entrée" }
        ]
    })).await?;
    calendar(state, zoo, entry.0, |_| ("24.00", "26.00"), Some(160)).await?;
    timeslots(
        state,
        zoo,
        entry.1,
        &[
            ("09:00", "11:00"),
            ("11:00", "13:00"),
            ("13:00", "15:00"),
            ("15:00", "17:00"),
        ],
        Some(40),
    )
    .await?;
    let feeding = product(state, zoo, &demo, json!({
        "title": "Olifanten voeren", "product_type": "TICKET", "sku": "ZOO-FEED", "age_group": "adult",
        "unit_price": "15.00", "list_price": "15.00",
        // The keepers greet each feeder by name and guide the group in one language.
        "questions": [
            { "question_id": "visitor_name", "per": "ticket", "input_type": "text",
              "required": true, "personal_data": true,
              "label": { "nl-NL": "Naam van de bezoeker", "en-GB": "Visitor's name",
                         "de-DE": "Name des Besuchers", "fr-FR": "Nom du visiteur" } },
            { "question_id": "tour_language", "input_type": "select",
              "label": { "nl-NL": "Taal van de rondleiding", "en-GB": "Tour language",
                         "de-DE": "Sprache der Führung", "fr-FR": "Langue de la visite" },
              "options": [
                  { "value": "nl", "label": { "nl-NL": "Nederlands", "en-GB": "Dutch", "de-DE": "Niederländisch", "fr-FR": "Néerlandais" } },
                  { "value": "en", "label": { "nl-NL": "Engels", "en-GB": "English", "de-DE": "Englisch", "fr-FR": "Anglais" } }
              ] }
        ],
        "translations": [
            { "locale": "en-GB", "title": "Feed the elephants" },
            { "locale": "de-DE", "title": "Elefanten füttern" },
            { "locale": "fr-FR", "title": "Nourrir les éléphants" }
        ]
    })).await?;
    // A small finite capacity: three places a day.
    calendar(state, zoo, feeding.0, |_| ("15.00", "15.00"), Some(3)).await?;

    let today = local_date(chrono_tz::Europe::Amsterdam, Utc::now());
    let end_of_next_year = NaiveDate::from_ymd_opt(today.year() + 1, 12, 31).context("a date")?;
    product(state, park, &demo, json!({
        "title": "Jaarkaart", "product_type": "TICKET", "sku": "PARK-YEAR", "age_group": "adult", "no_date": true,
        "unit_price": "49.00", "list_price": "59.00",
        "ticket_validity_type": "VALIDITY_PERIOD", "ticket_validity_date": end_of_next_year,
        "translations": [
            { "locale": "en-GB", "title": "Annual pass" },
            { "locale": "de-DE", "title": "Jahreskarte" },
            { "locale": "fr-FR", "title": "Pass annuel" }
        ]
    })).await?;
    // Sold out on every day.
    let festival = product(state, park, &demo, json!({
        "title": "Zomerfestival", "product_type": "TICKET", "sku": "PARK-FEST", "age_group": "adult",
        "unit_price": "35.00", "list_price": "35.00",
        "translations": [
            { "locale": "en-GB", "title": "Summer festival" },
            { "locale": "de-DE", "title": "Sommerfestival" },
            { "locale": "fr-FR", "title": "Festival d’été" }
        ]
    })).await?;
    calendar(state, park, festival.0, |_| ("35.00", "35.00"), Some(0)).await?;

    for (code, kind, value, merchant, max) in [
        ("WELKOM10", "PERCENTAGE", "10.00", None, None),
        ("VIJFEURO", "AMOUNT", "5.00", None, None),
        ("DIERENPARK", "PERCENTAGE", "25.00", Some(zoo), None),
        ("EENMALIG", "AMOUNT", "7.50", None, Some(1)),
    ] {
        let input: VoucherInput = serde_json::from_value(json!({
            "campaign_id": DEMO_CAMPAIGN, "code": code, "kind": kind, "value": value,
            "merchant_id": merchant, "max_redemptions": max,
        }))?;
        store
            .create_voucher(crate::ids::random_id(), &input)
            .await?;
    }

    let lights_entry = product(state, lights, &[SECOND_CAMPAIGN], json!({
        "title": "Lichtroute", "product_type": "TICKET", "sku": "LIGHTS-ROUTE", "age_group": "adult",
        "unit_price": "14.50", "list_price": "14.50",
        "translations": [
            { "locale": "en-GB", "title": "Light route" },
            { "locale": "de-DE", "title": "Lichterroute" },
            { "locale": "fr-FR", "title": "Parcours lumineux" }
        ]
    })).await?;
    calendar(state, lights, lights_entry.0, |_| ("14.50", "14.50"), None).await?;
    pictures::seed(state, [museum, zoo, park, lights], [adult.0, feeding.0]).await
}

/// Prices `(price, list price)` of a day: `weekday` on weekdays, `full` at weekends.
fn weekdays_for(
    weekday: &'static str,
    full: &'static str,
) -> impl Fn(NaiveDate) -> (&'static str, &'static str) {
    move |day| match day.weekday().number_from_monday() {
        6 | 7 => (full, full),
        _ => (weekday, full),
    }
}

/// Creates a demo merchant, settled as the Netherlands' attractions are: 9 % VAT on admission,
/// and a 3 % platform fee (docs/settlement.md).
async fn merchant(
    state: &AppState,
    id: Uuid,
    mut input: serde_json::Value,
) -> anyhow::Result<Uuid> {
    if let Some(fields) = input.as_object_mut() {
        fields.insert(
            "tax".into(),
            json!({ "rates": [{ "name": "BTW 9%", "rate_percent": "9" }] }),
        );
        fields.insert("platform_fee".into(), json!({ "percent": "3" }));
    }
    let input: MerchantInput = serde_json::from_value(input)?;
    state.store.create_merchant(id, &input).await?;
    Ok(id)
}

/// Creates a product; returns its id and its availability group.
async fn product(
    state: &AppState,
    merchant_id: Uuid,
    campaigns: &[Uuid],
    mut input: serde_json::Value,
) -> anyhow::Result<(Uuid, Uuid)> {
    input["merchant_id"] = json!(merchant_id);
    input["campaign_ids"] = json!(campaigns);
    let input: ProductInput = serde_json::from_value(input)?;
    let product = state
        .store
        .create_product(crate::ids::random_id(), &input)
        .await?;
    Ok((product.product_id, product.availability_group_id))
}

/// Prices each of the next days by `price_of` (price, list price), with the group's capacity;
/// runs of days with the same prices are written as one range.
async fn calendar(
    state: &AppState,
    merchant_id: Uuid,
    product_id: Uuid,
    price_of: impl Fn(NaiveDate) -> (&'static str, &'static str),
    capacity: Option<i32>,
) -> anyhow::Result<()> {
    let zone = state
        .store
        .merchant(merchant_id)
        .await?
        .context("merchant")?
        .zone()?;
    let today = local_date(zone, Utc::now());
    let last = today + Duration::days(DAYS - 1);
    let mut from = today;
    while from <= last {
        let prices = price_of(from);
        let mut until = from;
        while until < last && price_of(until + Duration::days(1)) == prices {
            until += Duration::days(1);
        }
        let input = CalendarInput {
            from,
            until,
            price: prices.0.parse()?,
            list_price: prices.1.parse()?,
            capacity,
        };
        state.store.write_calendar(product_id, &input).await?;
        from = until + Duration::days(1);
    }
    Ok(())
}

async fn timeslots(
    state: &AppState,
    merchant_id: Uuid,
    group: Uuid,
    windows: &[(&str, &str)],
    capacity: Option<i32>,
) -> anyhow::Result<()> {
    let zone = state
        .store
        .merchant(merchant_id)
        .await?
        .context("merchant")?
        .zone()?;
    let today = local_date(zone, Utc::now());
    let windows: Vec<(NaiveTime, NaiveTime)> = windows
        .iter()
        .map(|(s, e)| {
            Ok((
                NaiveTime::parse_from_str(s, "%H:%M")?,
                NaiveTime::parse_from_str(e, "%H:%M")?,
            ))
        })
        .collect::<anyhow::Result<_>>()?;
    let (slots, _skipped) = expand(zone, today, today + Duration::days(DAYS - 1), &windows);
    state.store.write_timeslots(group, &slots, capacity).await?;
    Ok(())
}

/// The museum's after-sale policy: all back until 48 hours before the visit, half until 24
/// hours, another day until 24 hours before.
fn museum_policy() -> serde_json::Value {
    json!({
        "refund_rules": [
            { "until": "PT48H", "refund_percent": "100" },
            { "until": "PT24H", "refund_percent": "50" }
        ],
        "rebook_until": "PT24H"
    })
}
