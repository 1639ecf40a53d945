"""What people and programs read: the result's formats (table, JSON, CSV, Lisp), the HTML
reports, grades and the gradebook, a game's trace, colour, and the outputs a run writes."""
