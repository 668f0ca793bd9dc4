//! A deep link (docs/webframe.md, "Deep links"): the frame opened with `merchant_id` (and
//! `product_id`, with the choice `date`, `timeslot`, `quantities`) in its address starts on
//! that merchant's page or product instead of the list. Its parameter names, its parsing and
//! the path it leads to are here once, for the browser (`session::browser::opening`) and for
//! the server, whose first page of merchants is only for a frame that stays on the list
//! (`server/src/frame/first_page.rs`). The product screen makes the linked choice
//! (`choice`: what the link chose, judged against the product; `follow`: made on the screen).

pub mod choice;
pub mod follow;

use uuid::Uuid;

use super::url::encode;

/// The parameter naming the merchant.
pub const MERCHANT: &str = "merchant_id";
/// The parameter naming one of the merchant's products.
pub const PRODUCT: &str = "product_id";
/// The parameters of a deep link to a choice, as embed.js and the frame address name them.
pub const CHOICE: [&str; 3] = ["date", "timeslot", "quantities"];

/// Where a deep link points.
#[derive(Debug, Clone, PartialEq)]
pub struct DeepLink {
    pub merchant_id: Uuid,
    pub product_id: Option<Uuid>,
    /// The product's choice as given (non-empty values of `CHOICE`), passed on to the product
    /// screen, which judges it (`choice::LinkedChoice`); none without a product.
    pub choice: Vec<(&'static str, String)>,
}

impl DeepLink {
    /// The deep link among the parameters `param` reads, if there is one: a merchant's id, and
    /// perhaps a product's. A parameter that is no id is no link: the frame stays on the list.
    pub fn parse(param: impl Fn(&str) -> Option<String>) -> Option<Self> {
        let uuid = |name: &str| param(name).and_then(|v| v.parse::<Uuid>().ok());
        let merchant_id = uuid(MERCHANT)?;
        let product_id = uuid(PRODUCT);
        let choice = match product_id {
            Some(_) => CHOICE
                .into_iter()
                .filter_map(|name| Some((name, param(name).filter(|v| !v.is_empty())?)))
                .collect(),
            None => Vec::new(),
        };
        Some(Self {
            merchant_id,
            product_id,
            choice,
        })
    }

    /// The frame's path of the screen the link opens, with the product's choice.
    pub fn path(&self) -> String {
        let merchant = format!("/frame/merchants/{}", self.merchant_id);
        let Some(product) = self.product_id else {
            return merchant;
        };
        let query: Vec<String> = self
            .choice
            .iter()
            .map(|(name, value)| format!("{name}={}", encode(value)))
            .collect();
        let query = if query.is_empty() {
            String::new()
        } else {
            format!("?{}", query.join("&"))
        };
        format!("{merchant}/products/{product}{query}")
    }

    /// Opens the linked screen in place of the list the frame was opened on (only there: a
    /// reload of a screen the customer went on to stays where it is).
    #[cfg(feature = "hydrate")]
    pub fn follow(&self, navigate: impl Fn(&str, leptos_router::NavigateOptions)) {
        let at_home =
            super::url::address::path().is_some_and(|p| p.trim_end_matches('/') == "/frame");
        if at_home {
            let options = leptos_router::NavigateOptions {
                replace: true,
                ..Default::default()
            };
            navigate(&self.path(), options);
        }
    }
}

/// Takes the choice out of the product screen's address once it is reserved: a step back from
/// the checkout shows the product to choose again, and does not reserve a second time.
pub fn forget_choice() {
    #[cfg(feature = "hydrate")]
    if let Some(path) = super::url::address::path() {
        super::url::address::replace(&path);
    }
}

#[cfg(test)]
mod tests {
    use super::DeepLink;

    fn link(params: &[(&str, &str)]) -> Option<DeepLink> {
        DeepLink::parse(|name| {
            params
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        })
    }

    #[test]
    fn a_deep_link_carries_its_choice_to_the_product_only() {
        let (m, p) = (uuid::Uuid::from_u128(1), uuid::Uuid::from_u128(2));
        let (m_text, p_text) = (m.to_string(), p.to_string());
        let to_product = link(&[
            ("merchant_id", &m_text),
            ("product_id", &p_text),
            ("date", "2026-12-07"),
            ("timeslot", "09:30"),
            ("quantities", ""),
        ])
        .unwrap();
        assert_eq!(
            to_product.path(),
            format!("/frame/merchants/{m}/products/{p}?date=2026%2D12%2D07&timeslot=09%3A30")
        );
        let to_merchant = link(&[("merchant_id", &m_text), ("date", "2026-12-07")]).unwrap();
        assert_eq!(to_merchant.path(), format!("/frame/merchants/{m}"));
    }

    #[test]
    fn without_a_merchants_id_there_is_no_deep_link() {
        let p = uuid::Uuid::from_u128(2).to_string();
        assert_eq!(link(&[("product_id", &p)]), None);
        assert_eq!(link(&[("merchant_id", "0"), ("product_id", &p)]), None);
        assert_eq!(link(&[("utm_source", "x")]), None);
    }
}
