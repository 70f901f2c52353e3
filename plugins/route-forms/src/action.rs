//! Action routes (the `listed-id` stage's answer to `actions`): a `POST` whose path names an
//! entity in a parameter segment followed by verb segments (`/{table}/{pk}/-/update`,
//! `/-/delete`, `/{id}/tell`) acts on the entity that last parameter names. The last segment is
//! the verb: a delete verb (`delete`, `remove`, `destroy`) removes the entity, a plain update verb
//! (`update`, `edit`, …) changes it, any other verb is an action of that name changing it. The
//! host keeps a proposal only where the reads after every recorded call name that entity.

use rea_plugin_api::contracts::SCHEMA_VERSION;
use rea_plugin_api::contracts::route::{
    ActionEffect, ActionRoute, ActionRouteOutcome, ActionRouteRequest, WriteRoute,
};
use rea_plugin_api::route_fields::{DELETE_VERBS, PLAIN_UPDATE_VERBS};

/// The action routes of a request (see the module docs).
pub fn action_routes(request: &ActionRouteRequest) -> ActionRouteOutcome {
    ActionRouteOutcome {
        actions: request
            .routes
            .iter()
            .enumerate()
            .filter_map(|(index, route)| action_route(index, route))
            .collect(),
        schema_version: SCHEMA_VERSION,
    }
}

/// One route's action, if it is an action route.
fn action_route(index: usize, route: &WriteRoute) -> Option<ActionRoute> {
    if !route.method.eq_ignore_ascii_case("POST") {
        return None;
    }
    let segment = action_segment(route)?;
    let verb = item_segments(&route.segments).last()?.to_ascii_lowercase();
    let delete = DELETE_VERBS.contains(&verb.as_str());
    Some(ActionRoute {
        route: index,
        segment,
        effect: if delete {
            ActionEffect::Delete
        } else {
            ActionEffect::Update
        },
        action: (!delete && !PLAIN_UPDATE_VERBS.contains(&verb.as_str())).then_some(verb),
    })
}

/// The segment naming the entity of an action route: the last parameter segment, when one or
/// more literal segments follow it (a trailing empty segment left aside).
fn action_segment(route: &WriteRoute) -> Option<usize> {
    let length = item_segments(&route.segments).len();
    let at = route.parameters[..length.min(route.parameters.len())]
        .iter()
        .rposition(|parameter| *parameter)?;
    (at + 1 < length).then_some(at)
}

/// A path's segments without a trailing empty one (`/a/b/` names what `/a/b` does).
fn item_segments(segments: &[String]) -> &[String] {
    match segments.split_last() {
        Some((last, rest)) if last.is_empty() && !rest.is_empty() => rest,
        _ => segments,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route(method: &str, template: &str) -> WriteRoute {
        let segments: Vec<String> = template
            .strip_prefix('/')
            .unwrap_or(template)
            .split('/')
            .map(str::to_owned)
            .collect();
        let parameters = segments
            .iter()
            .map(|segment| segment.contains('{'))
            .collect();
        WriteRoute {
            method: method.to_owned(),
            segments,
            parameters,
        }
    }

    fn actions(routes: Vec<WriteRoute>) -> Vec<(usize, usize, ActionEffect, Option<String>)> {
        let request = ActionRouteRequest {
            routes,
            schema_version: SCHEMA_VERSION,
        };
        action_routes(&request)
            .actions
            .into_iter()
            .map(|action| (action.route, action.segment, action.effect, action.action))
            .collect()
    }

    #[test]
    fn action_routes_name_their_entity_before_the_verb_segments() {
        let found = actions(vec![
            route("POST", "/db/{table}/{numeric}/-/update"),
            route("POST", "/db/{table}/{numeric}/-/delete"),
            route("POST", "/api/trials/{numeric}/tell"),
            route("POST", "/api/trials/{numeric}/tell/"),
            // No verb after the parameter, no parameter at all, or not a POST.
            route("POST", "/posts/{numeric}"),
            route("POST", "/db/projects/CRM/-/update"),
            route("PUT", "/db/{table}/{numeric}/-/update"),
        ]);
        assert_eq!(
            found,
            vec![
                (0, 2, ActionEffect::Update, None),
                (1, 2, ActionEffect::Delete, None),
                (2, 2, ActionEffect::Update, Some("tell".to_owned())),
                (3, 2, ActionEffect::Update, Some("tell".to_owned())),
            ]
        );
    }
}
