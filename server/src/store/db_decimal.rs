use rust_decimal::Decimal;
use sqlx::{
    encode::IsNull,
    error::BoxDynError,
    postgres::{PgArgumentBuffer, PgTypeInfo, PgValueRef},
    sqlite::{SqliteArgumentValue, SqliteTypeInfo, SqliteValueRef},
    Decode, Encode, Postgres, Sqlite, Type,
};

/// A `Decimal` column: NUMERIC on Postgres, decimal text on SQLite (never a float on either).
/// Values read back are normalised (`2.50` → `2.5`) so both backends return the same value;
/// money gets its two wire decimals from `Money`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DbDecimal(pub Decimal);

impl From<Decimal> for DbDecimal {
    fn from(d: Decimal) -> Self {
        DbDecimal(d)
    }
}

impl From<DbDecimal> for Decimal {
    fn from(d: DbDecimal) -> Self {
        d.0
    }
}

impl Type<Postgres> for DbDecimal {
    fn type_info() -> PgTypeInfo {
        <Decimal as Type<Postgres>>::type_info()
    }
}

impl Encode<'_, Postgres> for DbDecimal {
    fn encode_by_ref(&self, buf: &mut PgArgumentBuffer) -> Result<IsNull, BoxDynError> {
        <Decimal as Encode<Postgres>>::encode_by_ref(&self.0, buf)
    }
}

impl<'r> Decode<'r, Postgres> for DbDecimal {
    fn decode(value: PgValueRef<'r>) -> Result<Self, BoxDynError> {
        <Decimal as Decode<Postgres>>::decode(value).map(|d| DbDecimal(d.normalize()))
    }
}

impl Type<Sqlite> for DbDecimal {
    fn type_info() -> SqliteTypeInfo {
        <String as Type<Sqlite>>::type_info()
    }

    fn compatible(ty: &SqliteTypeInfo) -> bool {
        <String as Type<Sqlite>>::compatible(ty)
    }
}

impl<'q> Encode<'q, Sqlite> for DbDecimal {
    fn encode_by_ref(&self, buf: &mut Vec<SqliteArgumentValue<'q>>) -> Result<IsNull, BoxDynError> {
        <String as Encode<Sqlite>>::encode(self.0.to_string(), buf)
    }
}

impl<'r> Decode<'r, Sqlite> for DbDecimal {
    fn decode(value: SqliteValueRef<'r>) -> Result<Self, BoxDynError> {
        let text = <&str as Decode<Sqlite>>::decode(value)?;
        Ok(DbDecimal(text.parse::<Decimal>()?.normalize()))
    }
}
