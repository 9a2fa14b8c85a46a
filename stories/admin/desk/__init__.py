"""The editing screen: a whole story written, cited and checked on one page of the admin.

- ``views``: the screen and its JSON endpoints (save, live checks, claim search, autosave);
- ``history``: revisions compared in prose, and restored;
- ``writing``: the writes, through ``stories.actions``;
- ``document``: the screen's working document and the three-way merge;
- ``search``: the claim search.
"""
