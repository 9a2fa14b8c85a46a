"""The editing screen: a whole story written, cited and checked on one page of the admin.

- ``views``: the screen and its JSON endpoints (save, live checks, claim search, autosave);
- ``history``: revisions compared in prose, and restored;
- its writes are ``stories.actions.screen``, its working document and three-way merge
  ``stories.desk.working``;
- ``search``: the claim search.
"""
