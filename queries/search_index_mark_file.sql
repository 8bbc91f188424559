-- Record how far a file is indexed (after search_index_forget_file has dropped its row).
INSERT INTO search_files VALUES ($file_id, $sha256, $low, $high, $events, $done)
