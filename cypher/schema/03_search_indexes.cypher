// Full-text (BM25) indexes on unit and box text, and vector indexes (384-d, cosine) on their embeddings.
// Steps and turns have a vector index each: a 5.26 vector query cannot filter by label, so through one
// index over all units a turn-only search of a namespace that also holds steps had to fetch (and search
// Lucene for) twice as many neighbours; a search over both kinds queries both indexes.
// ns_key is a one-token form of the namespace, so a Lucene query can filter by namespace inside the index.
// Quantization is off: quantized vectors change cosine scores in the third decimal and reorder near ties,
// and the embedded backend must rank exactly like Neo4j (384 float32 per unit is small enough).
// Parameters: none. Returns: nothing. Statements are separated by ';'.
CREATE FULLTEXT INDEX unit_text IF NOT EXISTS FOR (n:Step|Turn) ON EACH [n.text, n.ns_key];
CREATE FULLTEXT INDEX box_text IF NOT EXISTS FOR (n:Box) ON EACH [n.text, n.ns_key];
CREATE VECTOR INDEX step_embedding IF NOT EXISTS FOR (n:Step) ON n.embedding
  OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine', `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX turn_embedding IF NOT EXISTS FOR (n:Turn) ON n.embedding
  OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine', `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX box_embedding IF NOT EXISTS FOR (n:Box) ON n.embedding
  OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine', `vector.quantization.enabled`: false}}
