//! /users/*: own profile, public profiles, handles, deletion.

use super::super::auth::domain::Pin;
use super::super::error::{IdentityError, Result};
use super::super::openapi::Errors;
use super::super::sessions::caller::Authenticated;
use super::super::state::IdentityState;
use super::domain::{
    parse_avatar_url, parse_bio, parse_name, Handle, Language, DELETE_CONFIRMATION,
};
use super::dto::*;
use super::{service, store};
use crate::core::dto::{ok, Success};
use crate::core::http::json;
use crate::core::json_body::Json;
use crate::core::session::Change;
use actix_web::{delete, get, patch, post, web, HttpResponse};
use sea_orm::{ActiveModelTrait, IntoActiveModel, Set};

#[utoipa::path(tag = "users", security(("bearer" = [])),
    responses((status = 200, body = Success<User>), Errors))]
#[get("/users/me")]
pub async fn me(auth: Authenticated) -> Result<HttpResponse> {
    Ok(json(HttpResponse::Ok(), &ok(User::from(&*auth.user))))
}

#[utoipa::path(tag = "users", security(("bearer" = [])), request_body = UpdateMeRequest,
    responses((status = 200, body = Success<User>), Errors))]
#[patch("/users/me")]
pub async fn update_me(
    auth: Authenticated,
    st: web::Data<IdentityState>,
    body: Json<UpdateMeRequest>,
) -> Result<HttpResponse> {
    let body = body.into_inner();
    // Parse everything first: a bad field changes nothing.
    let name = body.name.as_deref().map(parse_name).transpose()?;
    let bio = body.bio.as_deref().map(parse_bio).transpose()?;
    let avatar = match body.avatar_url {
        Some(Some(ref u)) if !u.trim().is_empty() => Some(Some(parse_avatar_url(u)?)),
        Some(_) => Some(None),
        None => None,
    };
    let language = body.language.as_deref().map(Language::parse).transpose()?;

    let mut am = (*auth.user).clone().into_active_model();
    let mut changed = false;
    if let Some(n) = name {
        am.name = Set(Some(n));
        changed = true;
    }
    if let Some(b) = bio {
        am.bio = Set(b);
        changed = true;
    }
    if let Some(a) = avatar {
        am.avatar_url = Set(a);
        changed = true;
    }
    if let Some(l) = language {
        am.language = Set(l.into_inner());
        changed = true;
    }
    let updated = if changed {
        am.updated_at = Set(st.core.now());
        let updated = am.update(&st.core.db).await?;
        st.sessions
            .changed(Change::AccountChanged {
                account: updated.id,
            })
            .await;
        updated
    } else {
        (*auth.user).clone()
    };
    Ok(HttpResponse::Ok().json(ok(User::from(&updated))))
}

#[utoipa::path(tag = "users", security(("bearer" = [])), request_body = DeleteMeRequest,
    responses((status = 200, body = Success<DeletedResponse>), Errors))]
#[delete("/users/me")]
pub async fn delete_me(
    auth: Authenticated,
    st: web::Data<IdentityState>,
    body: Json<DeleteMeRequest>,
) -> Result<HttpResponse> {
    let pin = Pin::parse(&body.pin)?;
    if body.confirmation != DELETE_CONFIRMATION {
        return Err(IdentityError::InvalidRequest(format!(
            "confirmation must be exactly \"{DELETE_CONFIRMATION}\""
        ))
        .into());
    }
    let deleted_at = service::delete(&st, &auth.user, &pin).await?;
    Ok(HttpResponse::Ok().json(ok(DeletedResponse {
        message: format!(
            "Account deleted; its data will be erased after {} days",
            st.cfg.hard_delete_after_days
        ),
        deleted_at,
    })))
}

#[utoipa::path(tag = "users",
    params(("handle" = String, Path, description = "handle without the @")),
    responses((status = 200, body = Success<PublicProfile>), Errors))]
#[get("/users/@{handle}")]
pub async fn public_profile(
    st: web::Data<IdentityState>,
    path: web::Path<String>,
) -> Result<HttpResponse> {
    let not_found = || IdentityError::NotFound("no user has this handle".into());
    let handle = Handle::parse(&path).map_err(|_| not_found())?;
    let u = store::live_user_by_handle(&st.core.db, &handle)
        .await?
        .ok_or_else(not_found)?;
    Ok(HttpResponse::Ok().json(ok(PublicProfile::from(&u))))
}

#[utoipa::path(tag = "users", params(HandleCheckQuery),
    responses((status = 200, body = Success<HandleCheck>), Errors))]
#[get("/users/handle/check")]
pub async fn check_handle(
    st: web::Data<IdentityState>,
    q: web::Query<HandleCheckQuery>,
) -> Result<HttpResponse> {
    let handle = Handle::parse(&q.handle)?;
    let reason = if handle.is_reserved() {
        Some("reserved")
    } else if store::handle_taken(&st.core.db, &handle, None).await? {
        Some("taken")
    } else {
        None
    };
    Ok(HttpResponse::Ok().json(ok(HandleCheck {
        handle: handle.as_str().to_owned(),
        available: reason.is_none(),
        reason: reason.map(str::to_owned),
    })))
}

#[utoipa::path(tag = "users", security(("bearer" = [])),
    request_body = HandleChangeRequest, responses((status = 200, body = Success<HandleChanged>), Errors))]
#[post("/users/handle/change")]
pub async fn change_handle(
    auth: Authenticated,
    st: web::Data<IdentityState>,
    body: Json<HandleChangeRequest>,
) -> Result<HttpResponse> {
    let new = Handle::parse(&body.new_handle)?;
    let pin = Pin::parse(&body.pin)?;
    let changed = service::change_handle(&st, &auth.user, new, &pin).await?;
    Ok(HttpResponse::Ok().json(ok(changed)))
}
