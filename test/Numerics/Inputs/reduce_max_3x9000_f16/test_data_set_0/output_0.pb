
ByJºP@VÏP