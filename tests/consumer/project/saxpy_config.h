#pragma once
constexpr int kTiles = 16;
constexpr int kTile = 128;
