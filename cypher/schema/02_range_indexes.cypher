// Range indexes behind recall: step index, occurrence ordinals, event times, session intervals, and the
// namespace of units and boxes (bounded exact vector search in small namespaces, vector_*_exact).
// The trajectory query operators (recall/find_event_*, count_events_*, find_change*) seek one index per
// shape of question, each ending in t so a window is one range and the order of t comes from the index:
// event_step for a kind and object, event_kind_time for a kind alone, event_obj_time for an object
// alone, event_time for any event; change_time for the changes of one inventory item or state value.
// Parameters: none. Returns: nothing. Statements are separated by ';'.
CREATE INDEX step_time IF NOT EXISTS FOR (n:Step) ON (n.namespace, n.episode, n.t);
CREATE INDEX event_ordinal IF NOT EXISTS FOR (n:Event) ON (n.namespace, n.episode, n.kind, n.obj, n.ordinal);
CREATE INDEX event_step IF NOT EXISTS FOR (n:Event) ON (n.namespace, n.episode, n.kind, n.obj, n.t);
CREATE INDEX event_kind_time IF NOT EXISTS FOR (n:Event) ON (n.namespace, n.episode, n.kind, n.t);
CREATE INDEX event_obj_time IF NOT EXISTS FOR (n:Event) ON (n.namespace, n.episode, n.obj, n.t);
CREATE INDEX event_time IF NOT EXISTS FOR (n:Event) ON (n.namespace, n.episode, n.t);
CREATE INDEX change_time IF NOT EXISTS FOR (n:Change) ON (n.namespace, n.episode, n.source, n.name, n.t);
CREATE INDEX session_start IF NOT EXISTS FOR (n:Session) ON (n.namespace, n.start);
CREATE INDEX turn_event_start IF NOT EXISTS FOR (n:Turn) ON (n.namespace, n.event_start);
CREATE INDEX episode_namespace IF NOT EXISTS FOR (n:Episode) ON (n.namespace);
CREATE INDEX trace_namespace IF NOT EXISTS FOR (n:Trace) ON (n.namespace);
CREATE INDEX unit_namespace IF NOT EXISTS FOR (n:Unit) ON (n.namespace);
CREATE INDEX box_namespace IF NOT EXISTS FOR (n:Box) ON (n.namespace)
