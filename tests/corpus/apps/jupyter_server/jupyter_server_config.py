"""Jupyter Server configuration used by record.py (loaded with --config).

With one shared token Jupyter Server makes up a random anonymous user per
browser session ("Anonymous Io" with a uuid); this names that user "agent"
instead, so /api/me and every recorded cookie-less request see the same
identity on every run. Token checking itself is unchanged.
"""

from jupyter_server.auth.identity import IdentityProvider, User


class FixedAnonymousIdentity(IdentityProvider):
    def generate_anonymous_user(self, handler):
        return User(username="agent", name="Agent", display_name="Agent", initials="AG", avatar_url=None, color=None)


c = get_config()  # noqa: F821 (provided by the traitlets config loader)
c.ServerApp.identity_provider_class = FixedAnonymousIdentity
c.FileContentsManager.delete_to_trash = False
