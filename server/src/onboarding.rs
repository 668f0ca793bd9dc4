//! Merchant onboarding: an operator provisions the merchant's payment account and a magic link
//! is mailed; the merchant exchanges the link's single-use code for a merchant bearer and uses
//! it to get the provider's KYC URL.

use app::wire::{MailKind, MerchantAccountStatus};
use chrono::{Duration, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::{
    auth::{
        codes::{code_hash, new_code},
        tokens::MerchantClaims,
        Audience, MerchantUser, TokenService,
    },
    config::Config,
    error::{Error, ProblemType, Result},
    mail::outbox::{self, Outbox},
    providers::PaymentProvider,
    store::{MailContent, MailOutcome, MerchantAccount, NewMail, Store},
    validate::Checks,
};

/// What onboarding works with, borrowed from the router's state for one call.
pub struct Onboarding<'a> {
    pub config: &'a Config,
    pub store: &'a dyn Store,
    pub tokens: &'a TokenService,
    pub payments: &'a dyn PaymentProvider,
    pub outbox: &'a Outbox,
}

/// Lifetime of an onboarding code.
const CODE_TTL_DAYS: i64 = 7;
/// Lifetime of a merchant bearer.
pub const MERCHANT_TOKEN_TTL_SECS: u64 = 3600;

/// An operator's request to onboard a merchant.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewMerchantAccount {
    #[schema(format = Email, max_length = 254)]
    pub email: String,
    #[schema(max_length = 200, pattern = r"[^\s\u0085]|\ufeff")]
    pub legal_name: String,
    /// The catalog merchant this account settles for, if it exists yet.
    pub merchant_id: Option<Uuid>,
}

/// The provisioned account and whether its magic link went out.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ProvisionedMerchantAccount {
    #[serde(flatten)]
    pub account: MerchantAccount,
    pub magic_link_mail: MagicLinkMail,
}

/// What became of the magic link's mail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum MagicLinkMail {
    /// Delivered by SMTP.
    Sent,
    /// Kept in the outbox: no SMTP is configured (or the worker sends it).
    Outbox,
    /// The first attempt failed; the link is in the outbox, where the worker tries again
    /// unless the refusal was for good (`GET /admin/v1/mails`).
    Failed,
}

pub use app::wire::{MerchantToken, OnboardingStatus};

/// Provisions the account at the payment provider and mails the magic link.
pub async fn provision(
    state: &Onboarding<'_>,
    request: NewMerchantAccount,
) -> Result<ProvisionedMerchantAccount> {
    let mut checks = Checks::default();
    checks.email("email", &request.email);
    checks.text("legal_name", &request.legal_name, 1, 200);
    checks.finish()?;

    let provisioned = state
        .payments
        .provision_account(&request.legal_name, &request.email)
        .await
        .map_err(crate::providers::payment::unavailable)?;
    let now = Utc::now();
    let account = MerchantAccount {
        merchant_account_id: crate::ids::random_id(),
        merchant_id: request.merchant_id,
        debtor_code: provisioned.debtor_code,
        email: request.email.trim().to_owned(),
        legal_name: request.legal_name.trim().to_owned(),
        provider_account_id: provisioned.provider_account_id,
        status: MerchantAccountStatus::PendingKyc,
        provider: state.payments.name().to_owned(),
        // A provider that does not pay merchants' own accounts never gates their sales.
        charges_enabled: !state.payments.pays_merchant_accounts(),
        created_at: now,
        updated_at: now,
    };
    let code = new_code();
    let link = format!(
        "{}/{}/merchant/onboarding?code={code}",
        state.config.base_url(),
        state.config.stage
    );
    // Written claimed, with the account, so this request sends it at once and no worker does
    // meanwhile; if it cannot, the worker does when the claim's lease ends.
    let claim = outbox::claim_to_send_now(state.outbox);
    let mail = NewMail {
        mail_id: crate::ids::random_id(),
        kind: MailKind::MagicLink,
        customer_order_id: None,
        merchant_account_id: Some(account.merchant_account_id),
        content: Some(MailContent {
            recipient: account.email.clone(),
            subject: "Welcome to Boxoffice: set up your merchant account".to_owned(),
            body_text: format!(
                "Hello {},\n\nOpen this link to set up your Boxoffice merchant account and complete the \
                 verification of your payment account. The link works once and for {CODE_TTL_DAYS} days.\n\n{link}\n",
                account.legal_name
            ),
            secret: Some(link),
        }),
        claim,
    };
    state
        .store
        .create_merchant_account(
            &account,
            &code_hash(&code),
            now + Duration::days(CODE_TTL_DAYS),
            &mail,
        )
        .await?;

    // The account exists whatever the mail does; an undelivered link stays in the outbox,
    // where the worker tries again.
    let magic_link_mail = match claim {
        None => {
            // No recipient: the log is no place for an address.
            tracing::info!(mail = %mail.mail_id, kind = %mail.kind, "mail kept in the outbox (no SMTP configured)");
            MagicLinkMail::Outbox
        }
        Some(claim) => match outbox::send_now(state.outbox, mail.mail_id, claim).await {
            Ok(Some(MailOutcome::Sent { .. })) => MagicLinkMail::Sent,
            Ok(None) => MagicLinkMail::Outbox,
            Ok(Some(MailOutcome::Failed { .. })) => MagicLinkMail::Failed,
            Err(err) => {
                tracing::warn!(error = ?err, merchant_account_id = %account.merchant_account_id, "magic link not delivered");
                MagicLinkMail::Failed
            }
        },
    };
    Ok(ProvisionedMerchantAccount {
        account,
        magic_link_mail,
    })
}

/// Redeems the magic link's code (once) for a merchant bearer.
pub async fn exchange_code(state: &Onboarding<'_>, code: &str) -> Result<MerchantToken> {
    let invalid = || {
        Error::new(
            ProblemType::OnboardingCodeInvalid,
            "The onboarding code is unknown, used or expired; ask for a new magic link.",
        )
    };
    if code.is_empty() || code.len() > 128 {
        return Err(invalid());
    }
    let account = state
        .store
        .redeem_onboarding_code(&code_hash(code), Utc::now())
        .await?
        .ok_or_else(invalid)?;
    let claims = MerchantClaims {
        registered: state.tokens.registered(
            Audience::Merchant,
            account.merchant_account_id.to_string(),
            MERCHANT_TOKEN_TTL_SECS,
        ),
    };
    Ok(MerchantToken {
        access_token: state.tokens.sign(&claims)?,
        token_type: "Bearer".into(),
        expires_in: MERCHANT_TOKEN_TTL_SECS,
        debtor_code: account.debtor_code,
    })
}

/// The KYC URL of the bearer's own account; any other debtor code is refused.
pub async fn status(
    state: &Onboarding<'_>,
    merchant: &MerchantUser,
    debtor_code: &str,
) -> Result<OnboardingStatus> {
    let account = state
        .store
        .merchant_account(merchant.merchant_account_id)
        .await?
        .filter(|a| a.debtor_code == debtor_code)
        .ok_or_else(|| {
            Error::new(
                ProblemType::Forbidden,
                "This debtorCode does not belong to the merchant account of the token.",
            )
        })?;
    let kyc_url = state
        .payments
        .kyc_url(&account.provider_account_id)
        .await
        .map_err(crate::providers::payment::unavailable)?;
    Ok(OnboardingStatus {
        debtor_code: account.debtor_code,
        status: account.status,
        kyc_url: kyc_url.to_string(),
    })
}
