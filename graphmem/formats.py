"""JSONL formats (one JSON object per line; blank lines are skipped)

Step log -- `graphmem ingest FILE -n NS`: one file is one episode (its id: the file stem, or --episode)
  {"t": 0, "action": "collect wood", "summary": "took wood from the tree", "objects": ["tree"],
   "events": [{"kind": "collect", "obj": "wood", "count": 1}], "relations": [["agent", "facing", "tree"]],
   "inventory": {"wood": 1}, "state": {"health": 9},
   "location": {"position": [3, 4], "region": "forest", "underfoot": "grass"}, "observation": "You see a tree."}
  "t" (an integer, strictly increasing) and "action" are required, every other key is optional;
  an unknown key is an error, so a typo does not drop data.

Chat log -- `graphmem ingest FILE -n NS`: the sessions of one dialogue, one utterance per line
  {"session_id": "s1", "timestamp": "2024-03-02T18:10:00+00:00", "speaker": "Maya",
   "text": "I adopted a dog named Pepper.", "id": "s1:1", "image_caption": "a puppy on a sofa"}
  session_id, timestamp (ISO 8601; without a zone it is UTC), speaker and text are required; a turn
  without "id" is "<session_id>:<n>" (n from 0 within its session); a session starts at its earliest
  timestamp and lasts until the next one starts. In exports a line may also carry "ended_at" (ISO 8601):
  the session's explicit end, which `graphmem import` keeps (`graphmem ingest` does not read it).

Export -- `graphmem export NS > memory.jsonl`, `graphmem import memory.jsonl [-n NS]`
  line 1, the header: {"format": "graphmem-export", "version": 1, "namespace": "agent-1"}
  then every episode in order, a line naming it followed by its records in the formats above:
  {"episode": "run-1", "kind": "trajectory"} and its step lines, or
  {"episode": "dialogue", "kind": "dialogue"} and its chat lines (all sessions, in time order).
  Import writes the records again through Memory.add_steps and Memory.add_session, so exporting the
  imported namespace gives the same lines after the header. A newer version is refused.
"""

#: The description above, for ``--help`` texts.
FORMATS = __doc__ or ""
#: What an export's header says it is, and the version this graphmem writes and reads.
EXPORT_FORMAT = "graphmem-export"
EXPORT_VERSION = 1
