//! The `keys` codec. (Placeholder: being written.)

use crate::blob::{EncodedBody, Header};
use crate::codec::{BodyDescription, Defaults, EncodeContext, PoseOut, SampleKey};
use crate::math::Transform;
use crate::{Error, Result};

pub(crate) fn encode(_ctx: &EncodeContext) -> Result<EncodedBody> {
    Err(Error::Unsupported("the keys codec is not built yet"))
}

pub(crate) fn validate(_h: &Header, _body: &[u8]) -> Result<()> {
    Err(Error::CorruptBlob("the keys codec is not built yet"))
}

pub(crate) fn sample_pose(
    _h: &Header,
    _body: &[u8],
    _key: &SampleKey,
    _d: &Defaults,
    _out: &mut PoseOut,
) {
    unreachable!("validate rejects every keys body")
}

pub(crate) fn sample_joint(
    _h: &Header,
    _body: &[u8],
    _key: &SampleKey,
    _joint: usize,
    _d: &Defaults,
) -> Transform {
    unreachable!("validate rejects every keys body")
}

pub(crate) fn describe(_h: &Header, _body: &[u8]) -> Result<BodyDescription> {
    Err(Error::CorruptBlob("the keys codec is not built yet"))
}
